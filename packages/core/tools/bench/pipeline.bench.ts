import { bench, describe } from 'vitest'
import { z } from 'zod'
import { createContext, silentLogger } from '@deepseek-ai/dsh-context'
import { defineTool, installTools } from '@deepseek-ai/dsh-tools'

// Per-call cost of the pipeline for a trivial tool, side by side with calling the body directly.
// Run with `pnpm bench`; compare the hz columns within one run (the machine is shared and noisy).

const add = defineTool({
  name: 'add',
  description: 'Add two numbers',
  parameters: z.object({ a: z.number(), b: z.number() }),
  isConcurrencySafe: () => true,
  execute: ({ a, b }) => a + b,
})

function runtime(options: { timeouts: boolean; listeners: boolean }) {
  const ctx = createContext({ logger: silentLogger })
  installTools(ctx, { enforceTimeouts: options.timeouts })
  ctx.tools.register(add)
  if (options.listeners) {
    ctx.on('tools/pre-execute', (_call, next) => next())
    ctx.on('tools/execute', (_call, next) => next())
    ctx.on('tools/post-execute', (_call, next) => next())
    ctx.on('tools/result', () => {})
  }
  // a realistic depth: root → agent → sub-agent
  return ctx.createScope({ name: 'agent' }).createScope({ name: 'sub' })
}

const slowAdd = { ...add, timeoutMs: 30_000 }
const withTimeout = runtime({ timeouts: true, listeners: false })
withTimeout.root.tools.register({ ...slowAdd, name: 'add_t' })
const shared = new AbortController().signal

const bare = runtime({ timeouts: false, listeners: false })
const defaults = runtime({ timeouts: true, listeners: false })
const busy = runtime({ timeouts: true, listeners: true })
const raw = '{"a":1,"b":2}'
let id = 0
const input = () => ({ callId: `c${++id}`, name: 'add', arguments: raw })

describe('one trivial tool call', () => {
  const schema = z.object({ a: z.number(), b: z.number() })
  bench('direct: JSON.parse + zod parse + body', async () => {
    const args = schema.parse(JSON.parse(raw))
    await add.execute(args, undefined as never)
  })
  bench('ctx.tools.execute, no listeners', async () => {
    await bare.tools.execute(input())
  })
  bench('ctx.tools.execute, shipped timeout wrapper (default install)', async () => {
    await defaults.tools.execute(input())
  })
  bench('ctx.tools.execute, timeout + one listener on every stage', async () => {
    await busy.tools.execute(input())
  })
  bench('ctx.tools.execute, a tool with timeoutMs', async () => {
    await withTimeout.tools.execute({ ...input(), name: 'add_t' })
  })
  bench('ctx.tools.execute, a tool with timeoutMs, one shared caller signal', async () => {
    await withTimeout.tools.execute({ ...input(), name: 'add_t', signal: shared })
  })
})

describe('one step of 10 parallel calls', () => {
  const calls = () => Array.from({ length: 10 }, input)
  bench('executeBatch (10 calls, pool of 10)', async () => {
    await defaults.tools.executeBatch(calls())
  })
  bench('10 sequential ctx.tools.execute', async () => {
    for (const call of calls()) await defaults.tools.execute(call)
  })
})

describe('service lookup', () => {
  let sink: unknown
  bench('ctx.tools on a depth-2 scope (plain property)', () => {
    sink = busy.tools
  })
  void sink
})
