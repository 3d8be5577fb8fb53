import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
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

interface Box {
  readonly left: number
  readonly top: number
  readonly right: number
  readonly bottom: number
}

/**
 * Per step panel, in page pixels: each started call's bar (run and wait for the commit turn, one
 * box) with its row, and each drawn name with what `elementFromPoint` finds under its middle.
 */
function drawnGeometry(page: Page) {
  return page.$$eval('section.step', (sections) =>
    sections.map((section) => {
      const seqOf = (element: (typeof section)['parentElement']): number =>
        Number(element?.closest('g.call')?.getAttribute('data-seq') ?? Number.NaN)
      const bars = [...section.querySelectorAll('g.call')].flatMap((call) => {
        const parts = [...call.querySelectorAll('.run, .wait')].map((part) => part.getBoundingClientRect())
        if (parts.length === 0) return []
        return [
          {
            seq: seqOf(call),
            row: Math.round(parts[0]!.top + parts[0]!.height / 2),
            left: Math.min(...parts.map((part) => part.left)),
            right: Math.max(...parts.map((part) => part.right)),
          },
        ]
      })
      const labels = [...section.querySelectorAll('g.call .name')].map((name) => {
        // the name is clipped by the <svg> around it, whose own box is its content's: use its viewport
        const clip = name.parentElement!
        const chart = name.closest('svg.chart')!.getBoundingClientRect()
        const at = (attribute: string): number => Number(clip.getAttribute(attribute))
        const text = name.getBoundingClientRect()
        const box = {
          left: Math.max(chart.left + at('x'), text.left),
          top: Math.max(chart.top + at('y'), text.top),
          right: Math.min(chart.left + at('x') + at('width'), text.right),
          bottom: Math.min(chart.top + at('y') + at('height'), text.bottom),
        }
        const under = section.ownerDocument.elementFromPoint(
          (box.left + box.right) / 2,
          (box.top + box.bottom) / 2,
        )
        return {
          seq: seqOf(name),
          under: seqOf(under),
          inside: !name.parentElement!.classList.contains('outside'),
          box,
        }
      })
      return { bars, labels }
    }),
  )
}

/** Pixels of exactly this colour inside `box` (page pixels; the screenshot is at scale 1). */
function pixelsIn(png: ReturnType<typeof decodePng>, box: Box, hex: string): number {
  const target = Number.parseInt(hex.slice(1), 16)
  let count = 0
  for (let y = Math.ceil(box.top); y < Math.floor(box.bottom); y += 1)
    for (let x = Math.ceil(box.left); x < Math.floor(box.right); x += 1) {
      const i = (y * png.width + x) * png.channels
      if (((png.pixels[i]! << 16) | (png.pixels[i + 1]! << 8) | png.pixels[i + 2]!) === target) count += 1
    }
  return count
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
        ['lane 1', 'lane 2', 'lane 3'],
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

  describe('the demo’s own sessions, as `npm start` recorded them (test/fixtures)', () => {
    const fixture = (name: string) =>
      buildTimeline(readJsonlSession(fileURLToPath(new URL(`fixtures/${name}`, import.meta.url))).events, {
        file: name,
      })

    it(
      'T25: a call’s wait for its commit turn never covers the next call of its slot: bars on one row do not meet, and every name is on its own bar, unpainted by another',
      async () => {
        const timeline = fixture('demo-native.jsonl')
        const { page, watch, url } = await open('demo-native', timeline)
        expect(await page.title()).toBe(
          '“Give me a tour of the docs folder, and leave a note in the …” · demo-native.jsonl · timeline',
        )
        expect(await page.textContent('h1')).toBe(
          '“Give me a tour of the docs folder, and leave a note in the scratch folder with what you found.”',
        )
        expect(await page.textContent('p.source')).toBe('demo-native.jsonl · 2026-12-01T17:16:03.480Z')
        const geometry = await drawnGeometry(page)
        // the first step: eleven calls in a pool of 3, most of them waiting for the slow ones to commit
        expect(geometry[0]!.bars.length).toBe(11)
        for (const [index, step] of geometry.entries()) {
          for (const [i, a] of step.bars.entries())
            for (const b of step.bars.slice(i + 1))
              if (a.row === b.row)
                expect(
                  a.right <= b.left + 0.5 || b.right <= a.left + 0.5,
                  `step ${index + 1}: seq ${a.seq} [${a.left}, ${a.right}] and seq ${b.seq} [${b.left}, ${b.right}] meet on row ${a.row}`,
                ).toBe(true)
          // what the browser finds under the middle of each name is its own call (names ignore the pointer)
          for (const label of step.labels)
            expect(label.under, `step ${index + 1}: the name of seq ${label.seq}`).toBe(label.seq)
        }
        const labels = geometry.flatMap((step) => step.labels)
        expect(labels.length).toBeGreaterThanOrEqual(15)
        // and in the picture: no name inside a bar has the lighter colour of a wait painted over it
        // (a few pixels of it are white text anti-aliased on the bar's blue: the two blend to it)
        const png = decodePng(await page.screenshot({ fullPage: true }))
        for (const label of labels.filter((candidate) => candidate.inside)) {
          const { left, top, right, bottom } = label.box
          const area = (right - left) * (bottom - top)
          expect(area).toBeGreaterThan(100)
          expect(pixelsIn(png, label.box, '#a6bcd4'), `the name of seq ${label.seq}`).toBeLessThan(area / 10)
        }
        expect(pixelsOfColour(png, '#a6bcd4')).toBeGreaterThan(2_000)
        expectQuiet(watch, url)
      },
      BROWSER_TEST,
    )

    it(
      'T33: a Code Mode session’s header counts the nested calls running with their program',
      async () => {
        const timeline = fixture('demo-code.jsonl')
        const { page, watch, url } = await open('demo-code', timeline)
        const metas = await page.$$eval('section.step .meta', (nodes) =>
          nodes.map((node) => node.textContent),
        )
        // the tour: the program and three of its calls at once (its nested pool holds 3)
        expect(metas[0]).toContain('· peak 4 in parallel (3 of them nested) ·')
        expect(metas.map((meta) => /peak (\d+) in parallel/.exec(meta ?? '')?.[1])).toEqual([
          '4',
          '2',
          '3',
          '4',
        ])
        expect(await page.locator('section.step').first().locator('.row-label').allTextContents()).toEqual([
          'slot 1',
          '↳ nested lane 1',
          '↳ nested lane 2',
          '↳ nested lane 3',
          '↳ nested lane 4',
        ])
        expectQuiet(watch, url)
      },
      BROWSER_TEST,
    )
  })

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
