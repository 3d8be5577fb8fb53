// Heap growth per call of the timeout machinery (issue 8 item 7). Run after a build:
//   pnpm build && node --expose-gc packages/core/tools/bench/timeout-heap.mjs
// Each scenario runs CALLS sequential ctx.tools.execute calls of a trivial tool, forces GC before
// and after, and prints the retained heap per call. "with timeoutMs" must be as flat as "without".
// TOOLS_DIST / CONTEXT_DIST point at other builds (to compare with an older version).
import { pathToFileURL } from 'node:url'

const CALLS = Number(process.env.CALLS ?? 100_000)
const tools = await import(process.env.TOOLS_DIST ?? new URL('../dist/index.js', import.meta.url).href)
const context = await import(
  process.env.CONTEXT_DIST ??
    pathToFileURL(new URL('../../context/dist/index.js', import.meta.url).pathname).href
)

if (typeof globalThis.gc !== 'function') throw new Error('run with node --expose-gc')

async function settleHeap() {
  for (let i = 0; i < 3; i++) {
    await new Promise((resolve) => setImmediate(resolve))
    globalThis.gc()
  }
  return process.memoryUsage().heapUsed
}

async function scenario(label, { timeoutMs, callerSignal }) {
  const ctx = context.createContext({ logger: context.silentLogger })
  tools.installTools(ctx)
  ctx.tools.register({
    name: 'add',
    description: 'Add two numbers',
    parameters: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } },
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
    execute: ({ a, b }) => a + b,
  })
  // one long-lived signal shared by every call, as a harness-wide shutdown signal would be
  const shared = callerSignal ? new AbortController().signal : undefined
  const input = (i) => ({ callId: `c${i}`, name: 'add', arguments: '{"a":1,"b":2}', signal: shared })
  // warm up: compiled code and inline caches are not growth
  for (let i = 0; i < 20_000; i++) await ctx.tools.execute(input(i))
  const before = await settleHeap()
  for (let i = 0; i < CALLS; i++) await ctx.tools.execute(input(i))
  const after = await settleHeap()
  const perCall = (after - before) / CALLS
  console.log(
    `${label.padEnd(44)} ${((after - before) / 1024 / 1024).toFixed(2).padStart(6)} MB over ${CALLS} calls  (${perCall.toFixed(1)} B/call)`,
  )
  return { ctx, shared }
}

const scenarios = [
  ['no timeoutMs, no caller signal', { timeoutMs: undefined, callerSignal: false }],
  ['timeoutMs, no caller signal', { timeoutMs: 30_000, callerSignal: false }],
  ['no timeoutMs, one long-lived caller signal', { timeoutMs: undefined, callerSignal: true }],
  ['timeoutMs, one long-lived caller signal', { timeoutMs: 30_000, callerSignal: true }],
]
// each scenario twice, the first as a warm-up of the process; the runtimes and signals stay
// referenced to the end, so what grew is what they retain
const keep = []
for (const round of [1, 2]) {
  if (round === 2) console.log('--- measured round')
  for (const [label, options] of scenarios) keep.push(await scenario(label, options))
}
