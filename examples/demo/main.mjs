// One agent turn, end to end, on the built packages: a scripted model asks for six tool calls in
// one step (parallel reads in a pool of 2, an exclusive write, a call that defers context), then
// answers in text.
// Prints the event trace (what a UI would draw), the session log and the replay check.
//
//   pnpm -r build && node examples/demo/main.mjs

import { z } from 'zod'
import { createContext } from '@deepseek-ai/dsh-context'
import { createScriptedModel, textBlock, toolCallBlock } from '@deepseek-ai/dsh-llm'
import { createMemorySession, verifyToolPairs } from '@deepseek-ai/dsh-session'
import { defineTool, installTools } from '@deepseek-ai/dsh-tools'
import { createAgent } from '@deepseek-ai/dsh-agent-loop'

const files = new Map([
  ['README.md', '# demo\n'],
  ['src/index.ts', 'export {}\n'],
  ['package.json', '{ "name": "demo" }\n'],
])
const sleep = (ms, signal) =>
  new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms)
    signal.addEventListener('abort', () => (clearTimeout(timer), reject(signal.reason)), { once: true })
  })

const ctx = createContext()
installTools(ctx)

// Parallel-safe: reads never conflict, so they share the pool.
ctx.tools.register(
  defineTool({
    name: 'read_file',
    description: 'Read a text file.',
    parameters: z.object({ path: z.string() }),
    isConcurrencySafe: () => true,
    presentCall: ({ path }) => `read ${path}`,
    execute: async ({ path }, exec) => {
      await sleep(15, exec.signal)
      const text = files.get(path)
      if (text === undefined) throw new Error(`no such file: ${path}`)
      return text
    },
  }),
)

// Exclusive (declares nothing): a barrier, it runs alone after everything before it committed.
ctx.tools.register(
  defineTool({
    name: 'write_file',
    description: 'Write a text file.',
    parameters: z.object({ path: z.string(), text: z.string() }),
    presentCall: ({ path }) => `write ${path}`,
    execute: async ({ path, text }, exec) => {
      await sleep(10, exec.signal)
      files.set(path, text)
      return `wrote ${text.length} bytes to ${path}`
    },
  }),
)

// Defers context: the text becomes part of the next step's user message.
ctx.tools.register(
  defineTool({
    name: 'remember',
    description: 'Keep a note for the next step.',
    parameters: z.object({ note: z.string() }),
    isConcurrencySafe: () => true,
    execute: ({ note }, exec) => {
      exec.deferContext(`Note to self: ${note}`)
      return 'noted'
    },
  }),
)

const model = createScriptedModel({
  turns: [
    [
      textBlock('Let me look around first.'),
      toolCallBlock({ id: 'r1', name: 'read_file', args: { path: 'README.md' } }),
      toolCallBlock({ id: 'r2', name: 'read_file', args: { path: 'src/index.ts' } }),
      toolCallBlock({ id: 'r3', name: 'read_file', args: { path: 'package.json' } }),
      toolCallBlock({ id: 'w4', name: 'write_file', args: { path: 'NOTES.md', text: 'checked the repo\n' } }),
      toolCallBlock({ id: 'r5', name: 'read_file', args: { path: 'NOTES.md' } }),
      toolCallBlock({
        id: 'm6',
        name: 'remember',
        args: { note: 'the repo has a README and one source file' },
      }),
    ],
    [textBlock('The repo has a README and an empty index.ts; I left NOTES.md behind.')],
  ],
})

const session = createMemorySession()
const agent = createAgent({
  ctx,
  name: 'demo',
  model,
  session,
  system: 'You are a careful assistant.',
  config: { maxParallelToolCalls: 2 },
})

const t0 = performance.now()
const ms = (at) => `+${(at - t0).toFixed(1).padStart(6)}ms`
const labels = new Map()

function describe(event) {
  switch (event.type) {
    case 'turn-start':
      return `turn ${event.turn}${event.resumed ? ' (resumed)' : ''}`
    case 'step-start':
      return `step ${event.step}`
    case 'model-call-start':
      return `${event.messages} messages, ${event.tools} tools`
    case 'model-call-end':
      return `${event.outcome}, ${event.finishReason ?? '-'} in ${event.durationMs.toFixed(1)}ms`
    case 'tool-call-queued':
      labels.set(event.callId, event.label)
      return `${event.callId} ${event.label}`
    case 'tool-call-start':
      return `${event.callId} ${labels.get(event.callId)} [${event.mode}] after ${event.queueMs.toFixed(1)}ms in queue`
    case 'tool-call-settled':
      return `${event.callId} ran ${event.runMs.toFixed(1)}ms`
    case 'tool-call-end': {
      const outcome = event.result.isError ? `error ${event.result.error.info?.code}` : 'ok'
      return `${event.callId} committed (${outcome}); queue ${event.timings.queueMs.toFixed(1)} / run ${event.timings.runMs.toFixed(1)} / commit ${event.timings.commitMs.toFixed(1)} ms`
    }
    case 'step-end':
      return `step ${event.step}: ${event.toolCalls} tool calls${event.concludesTurn ? ', concludes the turn' : ''}`
    case 'turn-end':
      return `turn ${event.turn} ${event.result.reason} after ${event.result.steps} steps`
    default:
      return ''
  }
}

console.log('Event trace')
const result = await agent.run('What is in this repo?', {
  onEvent: (event) => console.log(`  ${ms(event.at)}  ${event.type.padEnd(17)} ${describe(event)}`),
})

console.log(`\nAnswer: ${result.text}`)
console.log(`Usage: ${result.usage.totalTokens} tokens over ${result.steps} steps\n`)

console.log('Session log')
for (const event of session.events()) {
  const d = event.data
  let summary = ''
  if (event.type === 'tool/call') summary = `${d.callId} ${d.name}(${d.arguments})`
  else if (event.type === 'tool/result') {
    const block = d.message.content[0]
    summary = `${block.callId} ${block.isError ? `error ${d.error?.code}` : 'ok'} → cites seq ${event.sourceEventSeqs}`
  } else if (event.type === 'user/message')
    summary = `[${d.source}] ${d.message.content.map((b) => b.text).join(' | ')}`
  else if (event.type === 'assistant/message') summary = `step ${d.step}, ${d.finishReason}`
  else if (event.type === 'turn/end') summary = `${d.reason}, ${d.steps} steps`
  else if (event.type === 'turn/start') summary = `turn ${d.turn}`
  console.log(`  ${String(event.seq).padStart(3)}  ${event.type.padEnd(17)} ${summary}`)
}

const report = verifyToolPairs(session.events())
console.log(`\nverifyToolPairs(session.events()).ok = ${report.ok}`)
for (const problem of report.problems) console.log(`  ${problem.kind}: ${problem.message}`)
agent.dispose()
process.exitCode = report.ok ? 0 : 1
