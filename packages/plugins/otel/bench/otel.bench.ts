import { bench, describe } from 'vitest'
import { z } from 'zod'
import { createContext, silentLogger } from '@deepseek-ai/dsh-context'
import { defineTool, installTools } from '@deepseek-ai/dsh-tools'
import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base'
import { otelTracing } from '@deepseek-ai/dsh-otel'

// Per-call cost of the plugin on a trivial tool, side by side: no plugin, the plugin with no SDK
// registered (the global no-op tracer), and the plugin with an SDK that records every span (no
// exporter, so only the tracing work is measured). Run with `pnpm bench:micro`; compare the hz
// columns within one run (the machine is shared and noisy).

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

describe('one trivial tool call', () => {
  bench('ctx.tools.execute, no plugin', async () => {
    await plain.tools.execute(input())
  })
  bench('ctx.tools.execute, the same listeners passing through (no plugin code)', async () => {
    await passThrough.tools.execute(input())
  })
  bench('ctx.tools.execute, otelTracing with no SDK (no-op tracer)', async () => {
    await noop.tools.execute(input())
  })
  bench('ctx.tools.execute, otelTracing recording every span (SDK, no exporter)', async () => {
    await recording.tools.execute(input())
  })
})

describe('one step of 10 parallel calls', () => {
  const calls = () => Array.from({ length: 10 }, input)
  bench('executeBatch, no plugin', async () => {
    await plain.tools.executeBatch(calls())
  })
  bench('executeBatch, otelTracing with no SDK (no-op tracer)', async () => {
    await noop.tools.executeBatch(calls())
  })
})
