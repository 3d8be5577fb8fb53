// Heap growth of the step scheduler over 100,000 calls (1,000 batches of 100), with one long-lived
// signal: the caller's batch signal, or the same signal on every call. Run after `pnpm build`:
//   node --expose-gc packages/core/tools/bench/batch-heap.mjs
// Prints heapUsed growth after a full GC (after a warm-up of the same size), and any process
// warnings (MaxListenersExceededWarning).
import { createContext, silentLogger } from '@deepseek-ai/dsh-context'
import { defineTool, installTools } from '@deepseek-ai/dsh-tools'
import { z } from 'zod'

if (typeof globalThis.gc !== 'function') throw new Error('run with node --expose-gc')
const warnings = []
process.on('warning', (warning) => warnings.push(warning.name))

const ctx = createContext({ logger: silentLogger })
installTools(ctx)
const parameters = z.object({ n: z.number() })
ctx.tools.register(
  defineTool({
    name: 'plain',
    description: 'd',
    parameters,
    isConcurrencySafe: () => true,
    execute: ({ n }) => n,
  }),
)
ctx.tools.register(
  defineTool({
    name: 'timed',
    description: 'd',
    parameters,
    isConcurrencySafe: () => true,
    timeoutMs: 60_000,
    execute: ({ n }) => n,
  }),
)

const BATCHES = 1000
const PER_BATCH = 100
let id = 0

async function measure(label, run) {
  // warm up with as many calls again, so what is left is retention, not compiled code and caches
  for (let i = 0; i < BATCHES; i++) await run()
  globalThis.gc()
  const before = process.memoryUsage().heapUsed
  for (let i = 0; i < BATCHES; i++) await run()
  globalThis.gc()
  const after = process.memoryUsage().heapUsed
  console.log(
    `${label}: ${((after - before) / 1024 / 1024).toFixed(2)} MB heap growth per ${BATCHES * PER_BATCH} calls`,
  )
}

const calls = (name, signal) =>
  Array.from({ length: PER_BATCH }, () => ({
    callId: `c${++id}`,
    name,
    arguments: `{"n":${id}}`,
    ...(signal === undefined ? {} : { signal }),
  }))

const caller = new AbortController().signal
await measure('caller signal on the batch, plain tool', () =>
  ctx.tools.executeBatch(calls('plain'), { signal: caller, maxParallel: 10 }),
)
await measure('caller signal on the batch, tool with timeoutMs', () =>
  ctx.tools.executeBatch(calls('timed'), { signal: caller, maxParallel: 10 }),
)
const shared = new AbortController().signal
await measure('the same signal on every call, plain tool', () =>
  ctx.tools.executeBatch(calls('plain', shared), { maxParallel: 10 }),
)
await measure('the same signal on every call, pool of 100', () =>
  ctx.tools.executeBatch(calls('timed', shared), { signal: caller, maxParallel: 100 }),
)
console.log(`process warnings: ${warnings.length === 0 ? 'none' : warnings.join(', ')}`)
