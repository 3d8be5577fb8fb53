import type { BenchOptions, Log, TimedResult } from '../types.ts'
import { countAllocatedBytes } from './allocation.ts'
import { summarize } from './stats.ts'

/**
 * One case of the round loop. `op` performs `callsPerOp` tool calls and is awaited only when it
 * returns a promise. (Method syntax, so cases of different outcome types share one list.)
 */
export interface TimedCase<T = unknown> {
  readonly id: string
  readonly label: string
  readonly callsPerOp: number
  op(): T | Promise<T>
  /** Throws unless `outcome` (of the first op) shows the case did what it claims. Outside the clock. */
  verify(outcome: T): void
  /** Fresh per-round state (a new session, a new file), made outside the clock. */
  beforeRound?(): void | Promise<void>
  afterRound?(): void | Promise<void>
  /** Releases what the case holds (temp files), once it has been measured. */
  dispose?(): void
}

async function runOps(spec: TimedCase, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const outcome = spec.op()
    if (outcome instanceof Promise) await outcome
  }
}

/**
 * A small round loop rather than tinybench or mitata: each round needs process CPU time (every thread,
 * GC helpers included) and, in separate rounds, heap bytes allocated; neither harness reports those
 * per round on Node 20. Rounds run back to back with no forced GC in between: a forced full GC
 * shrinks the young generation and more than doubled the cost of the rounds after it, which no
 * real process sees; each round pays for the garbage of the one before, as a busy harness does.
 */
export async function measureCase<T>(
  spec: TimedCase<T>,
  options: BenchOptions,
  log: Log,
): Promise<TimedResult> {
  try {
    return await measureRounds(spec, options, log)
  } finally {
    spec.dispose?.()
  }
}

async function measureRounds<T>(spec: TimedCase<T>, options: BenchOptions, log: Log): Promise<TimedResult> {
  await spec.beforeRound?.()
  spec.verify(await spec.op())
  await spec.afterRound?.()
  // Warm up until both the time and the call count are reached (or the cap): V8 keeps optimizing
  // and the young generation keeps growing for thousands of calls, and a 100-call step needed about
  // 20,000 calls to settle here. Batches double while they take under 50 ms, each with fresh round
  // state (so a session does not grow through the warm-up); the last one sizes the rounds.
  let batch = 1
  let calls = spec.callsPerOp
  let msPerOp = Number.POSITIVE_INFINITY
  const warmupStart = performance.now()
  for (;;) {
    await spec.beforeRound?.()
    const start = performance.now()
    await runOps(spec, batch)
    const batchMs = performance.now() - start
    await spec.afterRound?.()
    msPerOp = batchMs / batch
    calls += batch * spec.callsPerOp
    const elapsed = performance.now() - warmupStart
    if ((elapsed >= options.warmupMs && calls >= options.warmupCalls) || elapsed >= options.warmupMaxMs) break
    if (batchMs < 50) batch *= 2
  }
  const opsPerRound = Math.max(1, Math.round(options.roundMs / msPerOp))
  const roundCalls = opsPerRound * spec.callsPerOp

  const wall: number[] = []
  const cpu: number[] = []
  for (let round = 0; round < options.rounds; round++) {
    await spec.beforeRound?.()
    const cpuStart = process.cpuUsage()
    const start = performance.now()
    await runOps(spec, opsPerRound)
    const elapsedMs = performance.now() - start
    const used = process.cpuUsage(cpuStart)
    await spec.afterRound?.()
    wall.push((elapsedMs * 1000) / roundCalls)
    cpu.push((used.user + used.system) / roundCalls)
  }

  const bytes: number[] = []
  for (let round = 0; round < options.allocRounds; round++) {
    await spec.beforeRound?.()
    bytes.push((await countAllocatedBytes(() => runOps(spec, opsPerRound))) / roundCalls)
    await spec.afterRound?.()
  }

  const result: TimedResult = {
    kind: 'timed',
    id: spec.id,
    label: spec.label,
    callsPerOp: spec.callsPerOp,
    opsPerRound,
    wallUsPerCall: summarize(wall),
    cpuUsPerCall: summarize(cpu),
    bytesPerCall: bytes.length === 0 ? null : summarize(bytes),
    samples: { wallUsPerCall: wall, cpuUsPerCall: cpu, bytesPerCall: bytes },
  }
  log(
    `${spec.id}: ${result.cpuUsPerCall.median.toFixed(2)} µs CPU/call, ${result.wallUsPerCall.median.toFixed(2)} µs wall/call` +
      (result.bytesPerCall === null ? '' : `, ${Math.round(result.bytesPerCall.median)} B/call`),
  )
  return result
}
