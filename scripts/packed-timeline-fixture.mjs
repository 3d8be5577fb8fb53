// The scratch project scripts/check-packed.mjs builds for @deepseek-ai/dsh-timeline: the packed
// timeline and the packed packages it needs (session, llm; nothing from the registry), a session
// file written with the packed session package, the `dsh-timeline` command run as npm installed it,
// and the library used from ESM and from CommonJS.

const record = `import { createToolResultMessage } from '@deepseek-ai/dsh-llm'
import { openJsonlSession } from '@deepseek-ai/dsh-session'

const session = openJsonlSession('session.jsonl', { durability: 'write' })
const call = session.append('tool/call', { turn: 1, step: 1, callId: 'c1', name: 'read_file', arguments: '{"path":"a"}' })
session.append(
  'tool/result',
  { turn: 1, step: 1, message: createToolResultMessage({ callId: 'c1', content: '</script><b>x</b>', isError: false }) },
  { surfaceOp: 'append', sourceEventSeqs: [call.seq] },
)
session.close()
`

const body = `
const { events } = readJsonlSession('session.jsonl')
const timeline = buildTimeline(events, { title: 'session.jsonl' })
const html = renderTimelineHtml(timeline)
const data = /<script type="application\\/json" id="dsh-timeline-data">([^<]*)<\\/script>/.exec(html)
console.log(
  JSON.stringify({
    calls: timeline.totals.calls,
    lanes: timeline.steps[0].rows.map((row) => row.label),
    result: timeline.steps[0].calls[0].result.text,
    page: html.startsWith('<!doctype html>') && data !== null && JSON.parse(data[1]).totals.calls,
  }),
)
`

const esm = `import { readJsonlSession } from '@deepseek-ai/dsh-session'
import { buildTimeline, renderTimelineHtml } from '@deepseek-ai/dsh-timeline'
${body}`

const cjs = `const { readJsonlSession } = require('@deepseek-ai/dsh-session')
const { buildTimeline, renderTimelineHtml } = require('@deepseek-ai/dsh-timeline')
${body}`

export const timelineFixture = {
  /** The packed packages the project installs (the timeline and what it imports). */
  packages: ['@deepseek-ai/dsh-timeline', '@deepseek-ai/dsh-session', '@deepseek-ai/dsh-llm'],
  files: { 'record.mjs': record, 'smoke.mjs': esm, 'smoke.cjs': cjs },
  expectedReport: { calls: 1, lanes: ['lane 1'], result: '</script><b>x</b>', page: 1 },
}
