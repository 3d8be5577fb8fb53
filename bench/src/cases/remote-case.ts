import { spawn, type ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { setTimeout as sleep } from 'node:timers/promises'
import { z } from 'zod'
import { createContext, silentLogger, type Context } from '@deepseek-ai/dsh-context'
import { createToolWorker, createRemoteDispatch, type ToolWorker } from '@deepseek-ai/dsh-dispatch-bullmq'
import { defineTool, installTools, type ToolExecutionInput } from '@deepseek-ai/dsh-tools'
import { startRedis } from '../../../scripts/redis-server.mjs'
import { summarize } from '../harness/stats.ts'
import type { BenchOptions, CaseResult, Figure, Log } from '../types.ts'

/** The body of the throughput figure: an I/O-bound tool (it waits, as a build or a fetch would). */
const SLOW_MS = 20
const BATCH = 100
const WORKER_CONCURRENCY = 10

/** The two tools, the same on both sides: `double` returns at once, `slow` waits SLOW_MS first. */
const tools = [
  defineTool({
    name: 'double',
    description: 'Double a number',
    parameters: z.object({ n: z.number() }),
    isConcurrencySafe: () => true,
    execute: ({ n }) => n * 2,
  }),
  defineTool({
    name: 'slow',
    description: 'Double a number after a wait',
    parameters: z.object({ n: z.number() }),
    isConcurrencySafe: () => true,
    execute: async ({ n }) => {
      await sleep(SLOW_MS)
      return n * 2
    },
  }),
]

/** A worker in its own process: the built package, the same tool definitions (inline source). */
const WORKER_SOURCE = `
import { setTimeout as sleep } from 'node:timers/promises'
import { z } from 'zod'
import { defineTool } from '@deepseek-ai/dsh-tools'
import { createToolWorker } from '@deepseek-ai/dsh-dispatch-bullmq'
const [url, queueName, concurrency, slowMs] = process.argv.slice(1)
const tools = [
  defineTool({ name: 'double', description: 'Double a number', parameters: z.object({ n: z.number() }), execute: ({ n }) => n * 2 }),
  defineTool({ name: 'slow', description: 'Double a number after a wait', parameters: z.object({ n: z.number() }),
    execute: async ({ n }) => { await sleep(Number(slowMs)); return n * 2 } }),
]
const worker = createToolWorker({ connection: url, queueName, tools, concurrency: Number(concurrency) })
await worker.ready
process.stdout.write('ready\\n')
process.stdin.resume()
process.stdin.on('end', async () => { await worker.close(); process.exit(0) })
`

interface Workers {
  close(): Promise<void>
}

/** The bench folder: the parent of the built dist/ this module runs from. */
const BENCH_DIR = fileURLToPath(new URL('..', import.meta.url))

async function startWorkers(
  url: string,
  queueName: string,
  count: number,
  processes: boolean,
): Promise<Workers> {
  if (!processes) {
    const inProcess: ToolWorker[] = []
    for (let i = 0; i < count; i++)
      inProcess.push(createToolWorker({ connection: url, queueName, tools, concurrency: WORKER_CONCURRENCY }))
    await Promise.all(inProcess.map((w) => w.ready))
    return { close: async () => void (await Promise.all(inProcess.map((w) => w.close()))) }
  }
  const children: ChildProcess[] = []
  for (let i = 0; i < count; i++) {
    children.push(
      spawn(
        process.execPath,
        [
          '--input-type=module',
          '-e',
          WORKER_SOURCE,
          url,
          queueName,
          String(WORKER_CONCURRENCY),
          String(SLOW_MS),
        ],
        // `-e` resolves the packages from the working directory: the bench folder (dist/'s parent),
        // wherever the bench was started from
        { cwd: BENCH_DIR, stdio: ['pipe', 'pipe', 'inherit'] },
      ),
    )
  }
  await Promise.all(
    children.map(
      (child) =>
        new Promise<void>((resolve, reject) => {
          child.stdout!.on('data', (chunk: Buffer) => chunk.toString().includes('ready') && resolve())
          child.once('exit', (code) => reject(new Error(`a remote_dispatch worker exited with ${code}`)))
        }),
    ),
  )
  return {
    close: async () => {
      await Promise.all(
        children.map((child) => {
          const exited = new Promise((resolve) => child.once('exit', resolve))
          child.stdin!.end()
          return exited
        }),
      )
    },
  }
}

function caller(remote: boolean, url: string, queueName: string): { ctx: Context; close(): Promise<void> } {
  const ctx = createContext({ logger: silentLogger })
  installTools(ctx)
  for (const tool of tools) ctx.tools.register(tool)
  if (!remote) return { ctx, close: async () => {} }
  const dispatch = createRemoteDispatch({ connection: url, queueName, remote: ['double', 'slow'] })
  dispatch.install(ctx)
  return { ctx, close: () => dispatch.close() }
}

let ids = 0
const call = (name: string, n: number): ToolExecutionInput => ({
  callId: `b${++ids}-${process.pid}`,
  name,
  arguments: `{"n":${n}}`,
})

/** Wall ms per call of `count` sequential calls. */
async function sequential(ctx: Context, count: number): Promise<number> {
  const started = performance.now()
  for (let i = 0; i < count; i++) {
    const result = await ctx.tools.execute(call('double', i))
    if (result.isError || result.value !== i * 2)
      throw new Error(`remote_dispatch: a call failed: ${JSON.stringify(result)}`)
  }
  return (performance.now() - started) / count
}

/** Calls per second of one batch of BATCH `slow` calls, 30 at a time. */
async function throughput(ctx: Context): Promise<number> {
  const started = performance.now()
  const results = await ctx.tools.executeBatch(
    Array.from({ length: BATCH }, (_, i) => call('slow', i)),
    { maxParallel: 30 },
  )
  if (results.some((r, i) => r.isError || r.value !== i * 2))
    throw new Error('remote_dispatch: a batch call failed')
  return BATCH / ((performance.now() - started) / 1000)
}

/**
 * `remote_dispatch`: what running a tool's body on a BullMQ worker costs, against a real Redis on
 * 127.0.0.1 (DSH_REDIS_URL, else a throwaway `redis-server`). Overhead: sequential calls of a
 * trivial tool, local and remote alternating per round. Throughput: a batch of 100 calls of a
 * tool that waits 20 ms, 30 in flight, on 1 and on 3 workers of concurrency 10.
 */
export async function runRemoteDispatch(options: BenchOptions, log: Log): Promise<CaseResult[]> {
  const own = process.env.DSH_REDIS_URL ? undefined : await startRedis()
  const url = process.env.DSH_REDIS_URL || own!.url
  const figures: Figure[] = []
  const figure = (name: string, unit: string, values: number[]): void =>
    void figures.push({ name, unit, stats: summarize(values) })
  try {
    const queue = `bench-${process.pid}`
    const local = caller(false, url, queue)
    const remote = caller(true, url, queue)
    const localMs: number[] = []
    const remoteMs: number[] = []
    const one = await startWorkers(url, queue, 1, options.remoteProcesses)
    const perWorker: Record<1 | 3, number[]> = { 1: [], 3: [] }
    try {
      await sequential(remote.ctx, Math.min(20, options.remoteCalls)) // warm-up: connections, JIT
      for (let round = 0; round < options.remoteRounds; round++) {
        localMs.push(await sequential(local.ctx, options.remoteCalls))
        remoteMs.push(await sequential(remote.ctx, options.remoteCalls))
        perWorker[1].push(await throughput(remote.ctx))
        log(
          `remote_dispatch round ${round + 1}: ${remoteMs.at(-1)!.toFixed(3)} ms remote, ${localMs.at(-1)!.toFixed(4)} ms local per call`,
        )
      }
    } finally {
      await one.close()
    }
    const three = await startWorkers(url, `${queue}`, 3, options.remoteProcesses)
    try {
      await throughput(remote.ctx) // warm-up of the fresh worker processes, as the single one had
      for (let round = 0; round < options.remoteRounds; round++)
        perWorker[3].push(await throughput(remote.ctx))
    } finally {
      await three.close()
      await remote.close()
    }
    figure('local execute, per call (sequential)', 'ms', localMs)
    figure('remote execute, per call (sequential, 1 worker)', 'ms', remoteMs)
    figure(
      'remote overhead per call (remote − local)',
      'ms',
      remoteMs.map((ms, i) => ms - localMs[i]!),
    )
    figure(`throughput, ${SLOW_MS} ms tool, 1 worker`, 'calls/s', perWorker[1])
    figure(`throughput, ${SLOW_MS} ms tool, 3 workers`, 'calls/s', perWorker[3])
    figure(
      'throughput 3 workers ÷ 1 worker',
      '×',
      perWorker[3].map((v, i) => v / perWorker[1][i]!),
    )
  } finally {
    await own?.stop()
  }
  return [
    {
      kind: 'figures',
      id: 'remote_dispatch',
      label: `remote_dispatch: BullMQ on a local redis-server, workers ${options.remoteProcesses ? 'in their own processes' : 'in the bench process'} (concurrency ${WORKER_CONCURRENCY}); ${options.remoteCalls} sequential calls per side per round; batches of ${BATCH} × ${SLOW_MS} ms calls, 30 in flight`,
      figures,
    },
  ]
}
