import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readJsonlSession } from '@deepseek-ai/dsh-session'
import { buildTimeline, renderTimelineHtml, type Timeline } from '@deepseek-ai/dsh-timeline'
import { launchBrowser, openWatched, type Browser, type PageWatch } from './support/browser.ts'
import { decodePng, distinctColours, pixelsOfColour } from './support/png.ts'
import { HOSTILE, recordDemoSession, recordHostileSession } from './support/record-session.ts'
import { syntheticSessionEvents } from './support/synthetic-session.ts'
import { useTempDirs } from '../../../../test-support/temp-dirs.ts'

// Timeouts here bound a browser start on a loaded machine; nothing is timed.
const BROWSER_TEST = 120_000

const tempDir = useTempDirs('dsh-timeline-', { until: 'file' })
let browser: Browser
let dir: string

beforeAll(async () => {
  dir = tempDir()
  browser = await launchBrowser()
}, 120_000)
afterAll(async () => {
  await browser?.close()
})

/** Writes the page for `timeline` and opens it from its file. */
async function open(name: string, timeline: Timeline, edit: (html: string) => string = (html) => html) {
  const file = join(dir, `${name}.html`)
  writeFileSync(file, edit(renderTimelineHtml(timeline)))
  const url = pathToFileURL(file).href
  return { url, ...(await openWatched(browser.context, url)) }
}

/** The page did nothing but draw itself: no dialog, error, console message or request but its own. */
function expectQuiet(watch: PageWatch, url: string): void {
  expect(watch.dialogs).toEqual([])
  expect(watch.errors).toEqual([])
  expect(watch.console).toEqual([])
  expect(watch.requests).toEqual([url])
}

/** Per step panel: its heading, row labels (top to bottom), barrier seqs (left to right), call seqs. */
function panels(page: Page) {
  return page.$$eval('section.step', (sections) =>
    sections.map((section) => ({
      heading: section.querySelector('h2')?.textContent,
      rows: [...section.querySelectorAll('.row')].map((row) => ({
        kind: row.getAttribute('class'),
        label: row.querySelector('.row-label')?.textContent,
        y: Number(row.querySelector('.stripe')?.getAttribute('y')),
      })),
      barriers: [...section.querySelectorAll('g.barrier')].map((barrier) => ({
        seq: Number(barrier.getAttribute('data-seq')),
        className: barrier.getAttribute('class'),
        x: Number(barrier.querySelector('.rule')?.getAttribute('x1')),
      })),
      calls: [...section.querySelectorAll('g.call')].map((call) => ({
        seq: Number(call.getAttribute('data-seq')),
        className: call.getAttribute('class'),
        x: Number(
          call
            .querySelector('.run, .mark')
            ?.getAttribute(call.querySelector('.run') ? 'x' : 'points')
            ?.split(',')[0],
        ),
        y: Number(call.querySelector('.run')?.getAttribute('y') ?? Number.NaN),
      })),
    })),
  )
}

describe('the timeline page in a real browser (Chromium)', () => {
  it(
    'T22, T23, T26: draws the recorded demo session — lanes, barriers and calls in order — shows a tooltip on hover, and its screenshot is not blank',
    async () => {
      const { path } = await recordDemoSession(dir)
      const timeline = buildTimeline(readJsonlSession(path).events, { title: 'demo.jsonl' })
      const { page, watch, url } = await open('demo', timeline)

      expect(await page.title()).toBe('demo.jsonl · timeline')
      const drawn = await panels(page)
      expect(drawn.map((panel) => panel.heading)).toEqual([
        'Turn 1 · step 1',
        'Turn 1 · step 2',
        'Turn 2 · step 1',
      ])
      expect(drawn.map((panel) => panel.rows.map((row) => row.label))).toEqual([
        ['slot 1', 'slot 2', 'slot 3'],
        ['slot 1', 'slot 2', 'slot 3', 'not started'],
        ['slot 1', 'slot 2'],
      ])
      for (const panel of drawn) {
        const ys = panel.rows.map((row) => row.y)
        expect(ys).toEqual([...ys].sort((a, b) => a - b))
      }
      drawn.forEach((panel, index) => {
        const step = timeline.steps[index]!
        expect(panel.barriers.map((barrier) => barrier.seq)).toEqual(
          step.barriers.map((barrier) => barrier.callSeq),
        )
        expect([...panel.calls.map((call) => call.seq)].sort((a, b) => a - b)).toEqual(
          step.calls.map((call) => call.seq),
        )
      })
      expect(drawn.map((panel) => panel.barriers.length)).toEqual([1, 0, 1])
      // the barrier's rule is where the exclusive call starts, after every earlier bar and before every later one
      const [first] = drawn
      const writeNote = timeline.steps[0]!.calls[5]!
      expect(writeNote.name).toBe('write_note')
      const barrier = first!.barriers[0]!
      // the loop records each call's mode: the barrier is a fact, drawn solid
      expect(barrier).toMatchObject({ seq: writeNote.seq, className: 'barrier' })
      const bar = (seq: number) => first!.calls.find((call) => call.seq === seq)!
      expect(bar(writeNote.seq).x).toBeCloseTo(barrier.x, 6)
      for (const call of timeline.steps[0]!.calls) {
        if (call.seq < writeNote.seq) expect(bar(call.seq).x).toBeLessThan(barrier.x)
        if (call.seq > writeNote.seq) expect(bar(call.seq).x).toBeGreaterThan(barrier.x)
      }
      // statuses are marked
      const flaky = timeline.steps[0]!.calls[7]!
      expect(bar(flaky.seq).className).toBe('call error')
      expect(drawn[1]!.calls.map((call) => call.className).sort()).toEqual([
        'call aborted',
        'call not-started',
        'call ok',
        'call ok',
      ])

      expect(await page.isHidden('#tip')).toBe(true)
      await page.hover(`g.call[data-seq="${flaky.seq}"] .run`)
      expect(await page.isVisible('#tip')).toBe(true)
      const tip = await page.textContent('#tip')
      expect(tip).toContain('flaky')
      expect(tip).toContain('error · TOOL_FAILED')
      expect(tip).toContain('the disk is on fire')
      expect(tip).toContain('parallel (recorded)')
      await page.mouse.move(2, 2)
      expect(await page.isHidden('#tip')).toBe(true)

      const screenshot = await page.screenshot({ fullPage: true })
      const png = decodePng(screenshot)
      expect(png.width).toBe(1280)
      expect(distinctColours(png)).toBeGreaterThan(50)
      // bars of each kind were painted: results, the errors, the aborted call
      expect(pixelsOfColour(png, '#4c78a8')).toBeGreaterThan(5_000)
      expect(pixelsOfColour(png, '#d1242f')).toBeGreaterThan(200)
      expect(pixelsOfColour(png, '#f58518')).toBeGreaterThan(1_000)

      // The picture in the README: `DSH_TIMELINE_SCREENSHOT=docs/timeline.png` (from the repository
      // root) keeps one, with a tooltip open below the last step.
      const keep = process.env.DSH_TIMELINE_SCREENSHOT
      if (keep !== undefined) {
        await page.setViewportSize({ width: 1280, height: 1200 })
        const listDir = timeline.steps[2]!.calls[2]!
        await page.hover(`g.call[data-seq="${listDir.seq}"] .run`, { position: { x: 120, y: 8 } })
        const bottomOf = (selector: string) =>
          page.$eval(selector, (element) => element.getBoundingClientRect().bottom)
        const bottom = Math.max(await bottomOf('main'), await bottomOf('#tip'))
        writeFileSync(
          keep,
          await page.screenshot({ clip: { x: 0, y: 0, width: 1280, height: Math.ceil(bottom) + 16 } }),
        )
      }
      expectQuiet(watch, url)
    },
    BROWSER_TEST,
  )

  it(
    'T33, T38: nested calls get rows under their parent lane; recorded barriers are solid; commit waits and late outcomes are drawn',
    async () => {
      const timeline = buildTimeline(syntheticSessionEvents(), { title: 'recorded fields' })
      const { page, watch, url } = await open('synthetic', timeline)
      const [step] = await panels(page)
      expect(step!.rows.map((row) => [row.kind, row.label])).toEqual([
        ['row slot', 'slot 1'],
        ['row nested', '↳ nested slot 1'],
        ['row nested', '↳ nested slot 2'],
        ['row slot', 'slot 2'],
      ])
      expect(step!.barriers.map((barrier) => barrier.className)).toEqual(['barrier', 'barrier'])
      const calls = timeline.steps[0]!.calls
      const rowY = step!.rows.map((row) => row.y)
      // each nested call sits on a nested row, below its parent's row
      for (const call of calls.filter((c) => c.depth === 1)) {
        const y = step!.calls.find((drawn) => drawn.seq === call.seq)!.y
        expect(y).toBeGreaterThan(rowY[0]!)
        expect(y).toBeLessThan(rowY[3]!)
      }
      expect(await page.locator(`g.call[data-seq="${calls[1]!.seq}"] .wait`).count()).toBe(1)
      expect(await page.locator(`g.call[data-seq="${calls[5]!.seq}"] .late`).count()).toBe(2)
      expect(await page.locator('section.step').count()).toBe(3)
      expect(await page.locator('g.call.interrupted').count()).toBe(1)
      expect(await page.locator('g.call.no-result').count()).toBe(1)
      await page.focus(`g.call[data-seq="${calls[5]!.seq}"]`)
      const tip = await page.textContent('#tip')
      expect(tip).toContain('exclusive (recorded)')
      expect(tip).toContain('late outcome +80 ms')
      expect(tip).toContain('returned "deployed"')
      expectQuiet(watch, url)
    },
    BROWSER_TEST,
  )

  describe('session content cannot inject anything', () => {
    const ALLOWED_TAGS = [
      'body',
      'div',
      'g',
      'h1',
      'h2',
      'head',
      'html',
      'li',
      'line',
      'main',
      'meta',
      'noscript',
      'p',
      'polygon',
      'pre',
      'rect',
      'script',
      'section',
      'span',
      'strong',
      'style',
      'svg',
      'text',
      'title',
      'ul',
    ]

    for (const variant of ['as rendered', 'with its Content-Security-Policy removed'] as const) {
      it(
        `${variant}: no dialog, no extra element or handler, no console error; the hostile text is shown as text`,
        async () => {
          const { path } = await recordHostileSession(tempDir())
          const timeline = buildTimeline(readJsonlSession(path).events, { title: HOSTILE.breakout })
          const withoutPolicy = (html: string): string => {
            const stripped = html.replace(/<meta http-equiv="Content-Security-Policy"[^>]*>\n/, '')
            expect(stripped).not.toBe(html)
            return stripped
          }
          const { page, watch, url } = await open(
            variant === 'as rendered' ? 'hostile' : 'hostile-no-csp',
            timeline,
            variant === 'as rendered' ? undefined : withoutPolicy,
          )
          const hostileCall = timeline.steps[0]!.calls.find((call) => call.name === HOSTILE.name)!
          expect(hostileCall.status).toBe('error')
          await page.hover(`g.call[data-seq="${hostileCall.seq}"] .run`)
          const tip = await page.textContent('#tip')
          expect(tip).toContain(HOSTILE.name)
          expect(tip).toContain(`h3"'<>`)
          expect(tip).toContain(HOSTILE.breakout.replace(/"/g, '\\"'))
          const echoed = timeline.steps[0]!.calls.find((call) => call.result?.text === HOSTILE.breakout)!
          await page.hover(`g.call[data-seq="${echoed.seq}"] .run`)
          expect(await page.textContent('#tip pre:last-of-type')).toBe(HOSTILE.breakout)
          const separators = timeline.steps[0]!.calls.find(
            (call) => call.result?.text === HOSTILE.separators,
          )!
          await page.hover(`g.call[data-seq="${separators.seq}"] .run`)
          expect(await page.textContent('#tip pre:last-of-type')).toBe(HOSTILE.separators)

          expect(await page.title()).toBe(`${HOSTILE.breakout} · timeline`)
          expect(await page.textContent('h1')).toBe(HOSTILE.breakout)
          const dom = await page.$$eval('*', (elements) => ({
            tags: [...new Set(elements.map((element) => element.localName))].sort(),
            scripts: elements.filter((element) => element.localName === 'script').length,
            images: elements.filter((element) => element.localName === 'img').length,
            handlers: elements.flatMap((element) =>
              [...element.attributes].filter((a) => a.name.toLowerCase().startsWith('on')).map((a) => a.name),
            ),
          }))
          expect(dom.tags.filter((tag) => !ALLOWED_TAGS.includes(tag))).toEqual([])
          expect(dom).toMatchObject({ scripts: 2, images: 0, handlers: [] })
          expectQuiet(watch, url)
        },
        BROWSER_TEST,
      )
    }
  })
})
