import { createHash } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { readJsonlSession } from '@deepseek-ai/dsh-session'
import { buildTimeline, renderTimelineHtml, TimelineError } from '@deepseek-ai/dsh-timeline'
import { timelineClient } from '../src/page/timeline-client.ts'
import { HOSTILE, recordHostileSession } from './support/record-session.ts'
import { syntheticSessionEvents } from './support/synthetic-session.ts'
import { useTempDirs } from '../../../../test-support/temp-dirs.ts'

const tempDir = useTempDirs('dsh-timeline-', { until: 'file' })

/** Every `<script …>…</script>` element, as the HTML parser would cut them (the first `</script` ends one). */
function scriptElements(html: string): { attributes: string; body: string }[] {
  return [...html.matchAll(/<script([^>]*)>([\s\S]*?)<\/script/gi)].map((m) => ({
    attributes: m[1]!,
    body: m[2]!,
  }))
}

const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('base64')

describe('the page, read as text', () => {
  it('is self-contained: one inline style, the data block and one inline script, nothing loaded from anywhere', () => {
    const html = renderTimelineHtml(buildTimeline(syntheticSessionEvents()))
    expect(html.startsWith('<!doctype html>\n')).toBe(true)
    const scripts = scriptElements(html)
    expect(scripts.map((s) => s.attributes)).toEqual([' type="application/json" id="dsh-timeline-data"', ''])
    expect(html.match(/<\/script/gi)).toHaveLength(2)
    expect(html.match(/<style/gi)).toHaveLength(1)
    // no markup attribute that loads anything, and no URL but the SVG namespace the script names
    const markup = html.replace(/<script[\s\S]*?<\/script>/gi, '').replace(/<style>[\s\S]*?<\/style>/, '')
    expect(markup).not.toMatch(/\s(src|href|srcset|action|poster|data)\s*=/i)
    expect(html).not.toMatch(/@import|url\(/i)
    expect([...html.matchAll(/https?:\/\/[^\s'"`)]+/g)].map((m) => m[0])).toEqual([
      'http://www.w3.org/2000/svg',
    ])
  })

  it('allows only its own script and style (by hash), and nothing else from anywhere', () => {
    const html = renderTimelineHtml(buildTimeline(syntheticSessionEvents()))
    const policy = /<meta http-equiv="Content-Security-Policy" content="([^"]*)">/.exec(html)?.[1]
    const script = scriptElements(html)[1]!.body
    const style = /<style>([\s\S]*?)<\/style>/.exec(html)![1]!
    expect(policy).toBe(
      `default-src 'none'; script-src 'sha256-${sha256(script)}'; style-src 'sha256-${sha256(style)}'; base-uri 'none'; form-action 'none'`,
    )
    // the policy comes before any script or style
    expect(html.indexOf('Content-Security-Policy')).toBeLessThan(html.indexOf('<style'))
  })

  it('the page script cannot end its own element, builds nodes only (no HTML parsing, no network), and is the client function', () => {
    const source = timelineClient.toString()
    expect(source).not.toMatch(/<\/script|<!--/i)
    for (const banned of [
      'innerHTML',
      'outerHTML',
      'insertAdjacentHTML',
      'document.write',
      'DOMParser',
      'createContextualFragment',
      'eval(',
      'Function(',
      'fetch(',
      'XMLHttpRequest',
      'WebSocket',
      'sendBeacon',
      'import(',
      '.src',
      'href',
      "'style'",
    ])
      expect(source.includes(banned), banned).toBe(false)
    const html = renderTimelineHtml(buildTimeline([]))
    expect(scriptElements(html)[1]!.body).toBe(`(${source})(document);`)
  })

  it('session content that attacks the page stays inside the JSON block, escaped, and reads back unchanged', async () => {
    const { path } = await recordHostileSession(tempDir())
    const timeline = buildTimeline(readJsonlSession(path).events, { title: HOSTILE.breakout })
    const html = renderTimelineHtml(timeline)
    const [data] = scriptElements(html)
    // the block holds exactly the whole timeline: no string closed it early
    expect(JSON.parse(data!.body)).toEqual(JSON.parse(JSON.stringify(timeline)))
    expect(data!.body).not.toMatch(/[<>&\u2028\u2029]/)
    for (const attack of ['<script>alert', '<img', 'onmouseover="', '\u2028', '\u2029'])
      expect(html.includes(attack), attack).toBe(false)
    // …while the hostile strings are all there for the tooltip, as data
    const texts = timeline.steps[0]!.calls.flatMap((call) => [call.name, call.callId, call.result?.text])
    expect(texts).toEqual(
      expect.arrayContaining([HOSTILE.name, `h3"'<>`, HOSTILE.script, HOSTILE.breakout, HOSTILE.separators]),
    )
  })

  it('a timeline that is not one is a TimelineError', () => {
    let error: unknown
    try {
      renderTimelineHtml({ steps: 'no' } as never)
    } catch (caught) {
      error = caught
    }
    expect(TimelineError.isInstance(error) && error.code).toBe('INVALID_ARGUMENT')
    expect((error as Error).message).toMatch(
      /^renderTimelineHtml\(timeline\): timeline must be what buildTimeline returns/,
    )
  })
})
