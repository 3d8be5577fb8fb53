import type { Timeline, TimelineCall, TimelineStep } from '../types.ts'
import type { ClientDocument, ClientElement, ClientEvent } from './client-dom.ts'

/**
 * The page script. It runs in the browser as `(source of this function)(document)`, so it must be
 * self-contained: no imports, no module-level names, nothing but its parameter and browser globals.
 * It reads the timeline from the JSON data block and draws it with `createElement` /
 * `createElementNS` and `textContent` only: session content never reaches an HTML parser.
 */
export function timelineClient(doc: ClientDocument): void {
  const SVG = 'http://www.w3.org/2000/svg'
  const GUTTER = 150
  const ROW = 24
  const BAR = 16
  const AXIS = 22

  const source = doc.getElementById('dsh-timeline-data')
  const data = JSON.parse(source?.textContent ?? 'null') as Timeline

  const el = (tag: string, className?: string, text?: string): ClientElement => {
    const node = doc.createElement(tag)
    if (className !== undefined) node.setAttribute('class', className)
    if (text !== undefined) node.textContent = text
    return node
  }
  const svgEl = (tag: string, attributes: Record<string, string | number>, parent?: ClientElement) => {
    const node = doc.createElementNS(SVG, tag)
    for (const name of Object.keys(attributes)) node.setAttribute(name, String(attributes[name]))
    if (parent !== undefined) parent.appendChild(node)
    return node
  }
  const ms = (value: number): string =>
    value < 1000 ? `${Math.round(value * 10) / 10} ms` : `${(value / 1000).toFixed(2)} s`
  const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`

  // Named after what the session is about (its first user message) and its file, unless titled.
  const subject = data.subject === undefined ? undefined : `“${data.subject}”`
  const heading = data.title ?? subject ?? data.file ?? 'dsh session timeline'
  // a window title shows less than a heading: the first 60 code points
  const points = data.subject === undefined ? [] : [...data.subject]
  const shortSubject = points.length > 60 ? `“${points.slice(0, 59).join('')}…”` : subject
  const named = [data.title ?? shortSubject, data.file].filter((part) => part !== undefined)
  doc.title = `${named.length === 0 ? 'dsh session' : named.join(' · ')} · timeline`
  const root = el('main')
  doc.body.appendChild(root)
  root.appendChild(el('h1', undefined, heading))
  const about = [heading === data.file ? undefined : data.file, data.startTime].filter(
    (part) => part !== undefined,
  )
  if (about.length > 0) root.appendChild(el('p', 'source', about.join(' · ')))

  const counts = data.totals.byStatus
  const parts = [plural(data.totals.steps, 'step'), plural(data.totals.calls, 'call'), `${counts.ok} ok`]
  if (counts.error > 0) parts.push(plural(counts.error, 'error'))
  if (counts.aborted > 0) parts.push(`${counts.aborted} aborted`)
  if (counts['not-started'] > 0) parts.push(`${counts['not-started']} not started`)
  if (counts.interrupted > 0) parts.push(`${counts.interrupted} interrupted`)
  if (counts['no-result'] > 0) parts.push(`${counts['no-result']} without result`)
  root.appendChild(el('p', 'summary', parts.join(' · ')))

  // the legend lists only what this page shows
  const present = new Set<string>()
  for (const step of data.steps) {
    if (step.barriers.length > 0) present.add('barrier')
    for (const call of step.calls) {
      present.add(call.status)
      if (call.settled !== undefined && call.committed !== undefined && call.committed > call.settled)
        present.add('wait')
      if (call.late !== undefined) present.add('late')
    }
  }
  const legend = el('ul', 'legend')
  const legendItems: [string, string][] = [
    ['ok', 'result'],
    ['error', 'error'],
    ['aborted', 'aborted'],
    ['interrupted', 'interrupted'],
    ['no-result', 'no result'],
    ['not-started', 'not started'],
    ['wait', 'waiting for its commit turn'],
    ['late', 'body outlived its result'],
    ['barrier', 'exclusive call (barrier)'],
  ]
  for (const [kind, label] of legendItems) {
    if (!present.has(kind)) continue
    const item = el('li')
    const swatch = svgEl('svg', { width: 22, height: 12, class: `swatch ${kind}` })
    svgEl('rect', { x: 1, y: 1, width: 20, height: 10, rx: 2 }, swatch)
    item.appendChild(swatch)
    item.appendChild(el('span', undefined, label))
    legend.appendChild(item)
  }
  root.appendChild(legend)

  const explanations: string[] = []
  if (!data.recorded.mode)
    explanations.push(
      'This session does not record each call’s mode: barriers are inferred from the order of events (dashed rules). A call marked so ran with nothing else of its step; it was exclusive, or parallel with the pool to itself.',
    )
  if (!data.recorded.timings)
    explanations.push(
      'This session does not record when each call’s body finished: bars end when its result was committed (results commit in model order), so a bar can include time spent waiting for an earlier call, and lanes can outnumber pool slots.',
    )
  for (const text of explanations) root.appendChild(el('p', 'note', text))
  if (data.notes.length > 0) {
    const list = el('ul', 'notes')
    for (const text of data.notes) list.appendChild(el('li', undefined, text))
    root.appendChild(list)
  }
  if (data.steps.length === 0) root.appendChild(el('p', 'empty', 'No tool calls in this session.'))

  const tip = el('div', 'tip')
  tip.setAttribute('id', 'tip')
  tip.setAttribute('role', 'tooltip')
  tip.hidden = true
  doc.body.appendChild(tip)

  const width = Math.max(720, doc.documentElement.clientWidth - 48)
  // room on the right for half of the last tick label
  const plot = width - GUTTER - 28

  const describeMode = (call: TimelineCall): string => {
    if (call.mode === undefined) return 'not known (the only call of its pool)'
    if (call.mode === 'alone') return 'ran alone (inferred: exclusive, or parallel with the pool to itself)'
    return `${call.mode} (${call.modeSource ?? 'recorded'})`
  }

  const placeTip = (at: { x: number; y: number }): void => {
    const room = doc.documentElement
    const left = Math.max(4, Math.min(at.x + 14, room.clientWidth - tip.offsetWidth - 8))
    const below = at.y + 16
    const top = below + tip.offsetHeight > room.clientHeight ? at.y - tip.offsetHeight - 12 : below
    tip.style.left = `${left}px`
    tip.style.top = `${Math.max(4, top)}px`
  }

  const showTip = (step: TimelineStep, call: TimelineCall, at: { x: number; y: number }): void => {
    tip.textContent = ''
    const head = el('div', 'tip-head')
    head.appendChild(el('strong', undefined, call.name))
    const status = call.error === undefined ? call.status : `${call.status} · ${call.error.code}`
    head.appendChild(el('span', `tip-status ${call.status}`, status))
    tip.appendChild(head)
    const fact = (label: string, value: string): void => {
      const line = el('div', 'tip-fact')
      line.appendChild(el('span', 'tip-label', label))
      line.appendChild(el('span', undefined, value))
      tip.appendChild(line)
    }
    fact('call', `${call.callId} (seq ${call.seq})`)
    fact('where', `turn ${step.turn}, step ${step.step}, ${step.rows[call.row]?.label ?? ''}`)
    fact('mode', describeMode(call))
    const when = [`started +${ms(call.start)}`]
    if (call.settled !== undefined) when.push(`settled +${ms(call.settled)}`)
    if (call.committed !== undefined) when.push(`committed +${ms(call.committed)}`)
    if (call.late !== undefined) when.push(`late outcome +${ms(call.late)}`)
    fact('time', when.join(' · '))
    fact('at', call.times.call)
    const block = (label: string, text: { text: string; omitted: number } | undefined): void => {
      if (text === undefined) return
      tip.appendChild(el('div', 'tip-label', label))
      tip.appendChild(el('pre', undefined, text.text))
      if (text.omitted > 0) tip.appendChild(el('div', 'tip-more', `… ${text.omitted} more characters`))
    }
    block('arguments', call.arguments)
    block('result', call.result)
    block('late outcome', call.lateOutcome)
    tip.hidden = false
    placeTip(at)
  }
  const hideTip = (): void => {
    tip.hidden = true
  }
  doc.addEventListener('keydown', (event: ClientEvent) => {
    if (event.key === 'Escape') hideTip()
  })

  const tickStep = (duration: number): number => {
    const raw = duration / 6
    const power = Math.pow(10, Math.floor(Math.log10(raw)))
    for (const factor of [1, 2, 5, 10]) if (factor * power >= raw) return factor * power
    return 10 * power
  }

  for (const step of data.steps) {
    const section = el('section', 'step')
    const s = step.stats
    section.appendChild(el('h2', undefined, `Turn ${step.turn} · step ${step.step}`))
    const meta = [
      plural(s.calls, 'call'),
      `${ms(s.wallMs)} wall`,
      `${ms(s.busyMs)} if run one after another`,
      s.peakNested > 0
        ? `peak ${s.peakParallel} in parallel (${s.peakNested} of them nested)`
        : `peak ${s.peakParallel} in parallel`,
      step.startTime,
    ]
    section.appendChild(el('p', 'meta', meta.join(' · ')))
    const height = AXIS + step.rows.length * ROW + 6
    const svg = svgEl('svg', { class: 'chart', width, height, viewBox: `0 0 ${width} ${height}` })
    const x = (t: number): number => GUTTER + (Math.max(0, t) / step.duration) * plot
    const rowTop = (row: number): number => AXIS + row * ROW

    const rows = svgEl('g', { class: 'rows' }, svg)
    step.rows.forEach((row, index) => {
      const group = svgEl('g', { class: `row ${row.kind}` }, rows)
      svgEl('rect', { class: 'stripe', x: 0, y: rowTop(index), width, height: ROW }, group)
      const label = svgEl(
        'text',
        { class: 'row-label', x: 8 + row.depth * 12, y: rowTop(index) + ROW / 2 + 4 },
        group,
      )
      label.textContent = row.label
    })

    const axis = svgEl('g', { class: 'axis' }, svg)
    const every = tickStep(step.duration)
    for (let t = 0; t <= step.duration + every / 1000; t += every) {
      svgEl('line', { x1: x(t), x2: x(t), y1: AXIS - 4, y2: height - 6 }, axis)
      const text = svgEl('text', { x: x(t), y: AXIS - 8, 'text-anchor': 'middle' }, axis)
      text.textContent = ms(t)
    }

    const barriers = svgEl('g', { class: 'barriers' }, svg)
    for (const barrier of step.barriers) {
      const group = svgEl('g', { class: barrier.inferred ? 'barrier inferred' : 'barrier' }, barriers)
      group.setAttribute('data-seq', String(barrier.callSeq))
      const top = rowTop(barrier.firstRow)
      const bottom = rowTop(barrier.lastRow + 1)
      svgEl(
        'rect',
        {
          class: 'band',
          x: x(barrier.start),
          y: top,
          width: Math.max(1, x(barrier.end) - x(barrier.start)),
          height: bottom - top,
        },
        group,
      )
      svgEl(
        'line',
        { class: 'rule', x1: x(barrier.start), x2: x(barrier.start), y1: top - 3, y2: bottom },
        group,
      )
      svgEl('line', { class: 'rule', x1: x(barrier.end), x2: x(barrier.end), y1: top - 3, y2: bottom }, group)
    }

    const bars = svgEl('g', { class: 'calls' }, svg)
    // Bars of one row never overlap (the layout sees to it), so a name too long for its run can go
    // after it, up to where the next bar of its row starts.
    const nextStart = new Map<TimelineCall, number>()
    const byRow = new Map<number, TimelineCall[]>()
    for (const call of step.calls) {
      if (call.status === 'not-started') continue
      const row = byRow.get(call.row)
      if (row === undefined) byRow.set(call.row, [call])
      else row.push(call)
    }
    for (const row of byRow.values()) {
      row.sort((a, b) => a.start - b.start || a.seq - b.seq)
      row.forEach((call, index) => nextStart.set(call, row[index + 1]?.start ?? Number.POSITIVE_INFINITY))
    }
    // longest first, so a short call drawn where a long one starts stays visible (and hoverable)
    const drawOrder = step.calls.slice().sort((a, b) => b.end - b.start - (a.end - a.start) || a.seq - b.seq)
    for (const call of drawOrder) {
      const group = svgEl('g', { class: `call ${call.status}`, tabindex: 0, 'data-seq': call.seq }, bars)
      group.setAttribute('aria-label', `${call.name}: ${call.status}`)
      const y = rowTop(call.row) + (ROW - BAR) / 2
      if (call.status === 'not-started') {
        const cx = x(call.committed ?? call.start)
        const cy = y + BAR / 2
        svgEl(
          'polygon',
          { class: 'mark', points: `${cx},${cy - 6} ${cx + 6},${cy} ${cx},${cy + 6} ${cx - 6},${cy}` },
          group,
        )
      } else {
        const runEnd = call.settled ?? call.committed ?? call.end
        const x0 = x(call.start)
        const next = nextStart.get(call) ?? Number.POSITIVE_INFINITY
        // a run too short to see is drawn 4 px wide, but never into the next bar of its row
        const runWidth = Math.max(Math.min(4, x(next) - x0), x(runEnd) - x0)
        svgEl('rect', { class: 'run', x: x0, y, width: runWidth, height: BAR, rx: 2 }, group)
        if (call.settled !== undefined && call.committed !== undefined && call.committed > call.settled)
          svgEl(
            'rect',
            {
              class: 'wait',
              x: x(call.settled),
              y: y + 3,
              width: x(call.committed) - x(call.settled),
              height: BAR - 6,
            },
            group,
          )
        if (call.late !== undefined) {
          const from = x(call.committed ?? runEnd)
          svgEl(
            'line',
            { class: 'late', x1: from, x2: x(call.late), y1: y + BAR / 2, y2: y + BAR / 2 },
            group,
          )
          svgEl(
            'line',
            { class: 'late', x1: x(call.late), x2: x(call.late), y1: y + 2, y2: y + BAR - 2 },
            group,
          )
        }
        // a nested <svg> clips the name to the room it has
        if (runWidth > 28) {
          const clip = svgEl('svg', { x: x0 + 4, y, width: runWidth - 8, height: BAR }, group)
          const name = svgEl('text', { class: 'name', x: 0, y: BAR / 2 + 4 }, clip)
          name.textContent = call.name
        } else {
          const from = x0 + runWidth + 3
          const room = Math.min(width, x(next)) - from - 4
          if (room > 28) {
            const clip = svgEl(
              'svg',
              { class: 'outside', x: from, y, width: Math.min(room, 160), height: BAR },
              group,
            )
            const name = svgEl('text', { class: 'name', x: 0, y: BAR / 2 + 4 }, clip)
            name.textContent = call.name
          }
        }
      }
      group.addEventListener('mouseenter', (event: ClientEvent) =>
        showTip(step, call, { x: event.clientX, y: event.clientY }),
      )
      group.addEventListener('mousemove', (event: ClientEvent) =>
        placeTip({ x: event.clientX, y: event.clientY }),
      )
      group.addEventListener('mouseleave', hideTip)
      group.addEventListener('focus', () => {
        const box = group.getBoundingClientRect()
        showTip(step, call, { x: box.left, y: box.bottom })
      })
      group.addEventListener('blur', hideTip)
    }
    section.appendChild(svg)
    root.appendChild(section)
  }
}
