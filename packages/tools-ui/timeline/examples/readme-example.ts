import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { z } from 'zod'
import { createAgent } from '@deepseek-ai/dsh-agent-loop'
import { createContext } from '@deepseek-ai/dsh-context'
import { createScriptedModel, textBlock, toolCallBlock } from '@deepseek-ai/dsh-llm'
import { openJsonlSession, readJsonlSession } from '@deepseek-ai/dsh-session'
import { defineTool, installTools } from '@deepseek-ai/dsh-tools'
import { buildTimeline, renderTimelineHtml } from '@deepseek-ai/dsh-timeline'

// An agent with a parallel-safe read and an exclusive write, recording into a JSONL session.
const ctx = createContext()
installTools(ctx)
ctx.tools.register(
  defineTool({
    name: 'read',
    description: 'Read a note.',
    parameters: z.object({ name: z.string() }),
    isConcurrencySafe: () => true,
    execute: ({ name }) => `contents of ${name}`,
  }),
)
ctx.tools.register(
  defineTool({
    name: 'write',
    description: 'Write a note (exclusive: no isConcurrencySafe).',
    parameters: z.object({ name: z.string() }),
    execute: ({ name }) => `wrote ${name}`,
  }),
)
const model = createScriptedModel({
  turns: [
    [
      toolCallBlock({ id: 'r1', name: 'read', args: { name: 'a' } }),
      toolCallBlock({ id: 'r2', name: 'read', args: { name: 'b' } }),
      toolCallBlock({ id: 'w1', name: 'write', args: { name: 'c' } }),
    ],
    [textBlock('Done.')],
  ],
})
const dir = mkdtempSync(join(tmpdir(), 'dsh-timeline-'))
const path = join(dir, 'session.jsonl')
const session = openJsonlSession(path)
const agent = createAgent({ ctx, name: 'notes', model, session })
await agent.run('Read a and b, then write c.')

// The file is read without taking its lock: the agent may still be writing it.
const { events } = readJsonlSession(path)
const timeline = buildTimeline(events, { file: 'session.jsonl' })
const [step] = timeline.steps
console.log(timeline.totals.calls, timeline.totals.byStatus.ok) // 3 3
console.log(step?.calls.map((call) => `${call.name}:${call.mode}`)) // [ 'read:parallel', 'read:parallel', 'write:exclusive' ]
console.log(step?.barriers.length) // 1
console.log(timeline.subject) // Read a and b, then write c.

writeFileSync(join(dir, 'timeline.html'), renderTimelineHtml(timeline))
console.log(readFileSync(join(dir, 'timeline.html'), 'utf8').startsWith('<!doctype html>')) // true
agent.dispose()
session.close()
rmSync(dir, { recursive: true, force: true })
