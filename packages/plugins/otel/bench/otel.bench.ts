import { bench, describe } from 'vitest'
import { z } from 'zod'
import { createContext, silentLogger, type Context } from '@deepseek-ai/dsh-context'
import { defineTool, installTools } from '@deepseek-ai/dsh-tools'
import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base'
import { otelTracing } from '@deepseek-ai/dsh-otel'

// Per-call cost of the plugin on a trivial tool, side by side: no plugin against the plugin with no
// SDK registered (dormant: the global provider is the API's no-op); then what tracing costs once an
// SDK is there: the same listeners doing nothing (the pipeline's own price for listening to every
// stage) and the plugin recording every span (SDK, no exporter). Run with `pnpm bench:micro`;
// compare within one group of one run (the machine is shared and noisy: under load the min column
// is the steady one, p75 and hz drift between runs of one case).

const add = defineTool({
  name: 'add',
  description: 'Add two numbers',
  parameters: z.object({ a: z.number(), b: z.number() }),
  isConcurrencySafe: () => true,
  execute: ({ a, b }) => a + b,
})

function runtime(tracing: 'none' | 'no-op' | 'recording' | 'pass-through') {
  const ctx = createContext({ logger: silentLogger })
  installTools(ctx)
  ctx.tools.register(add)
  if (tracing === 'pass-through') {
    // the same listeners as the plugin, doing nothing: what the pipeline charges any plugin that listens
    ctx.on('tools/pre-execute', (_call, next) => next(), { priority: 1e9 })
    ctx.tools.guard(() => undefined)
    ctx.on('tools/execute', (_call, next) => next(), { priority: 1e9 })
    ctx.on('tools/execute', (_call, next) => next(), { priority: -1e9 })
    ctx.on('tools/post-execute', (_call, next) => next(), { priority: 1e9 })
    ctx.on('tools/result', () => {})
    ctx.on('tools/late-outcome', () => {})
  }
  if (tracing === 'no-op') otelTracing(ctx)
  if (tracing === 'recording') otelTracing(ctx, { tracerProvider: new BasicTracerProvider() })
  // a realistic depth: root → agent
  return ctx.createScope({ name: 'agent' })
}

const plain = runtime('none')
const noop = runtime('no-op')
const recording = runtime('recording')
const passThrough = runtime('pass-through')
const raw = '{"a":1,"b":2}'
let id = 0
const input = () => ({ callId: `c${++id}`, name: 'add', arguments: raw, turn: 1, step: 1 })
// more samples than the default: the machines are shared, and a ratio needs a stable p75
const long = { time: 3000, warmupTime: 500 }

/** One `ctx.tools.execute` of the trivial tool per sample, through `ctx`. */
const benchExecute = (name: string, ctx: Context): void =>
  bench(
    name,
    async () => {
      await ctx.tools.execute(input())
    },
    long,
  )

describe('one trivial tool call, no SDK registered', () => {
  benchExecute('ctx.tools.execute, no plugin', plain)
  benchExecute('ctx.tools.execute, otelTracing with no SDK (dormant)', noop)
  // the first case once more: how far two runs of one case drift apart on this machine
  benchExecute('ctx.tools.execute, no plugin (again)', plain)
})

describe('one trivial tool call, tracing', () => {
  benchExecute('ctx.tools.execute, no plugin', plain)
  benchExecute('ctx.tools.execute, the plugin’s listeners passing through (no plugin code)', passThrough)
  benchExecute('ctx.tools.execute, otelTracing recording every span (SDK, no exporter)', recording)
})

describe('one step of 10 parallel calls', () => {
  const calls = () => Array.from({ length: 10 }, input)
  bench('executeBatch, no plugin', async () => {
    await plain.tools.executeBatch(calls())
  })
  bench('executeBatch, otelTracing with no SDK (dormant)', async () => {
    await noop.tools.executeBatch(calls())
  })
})
