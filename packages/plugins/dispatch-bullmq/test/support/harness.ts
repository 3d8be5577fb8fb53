import type { ChildProcess } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { fileURLToPath } from 'node:url'
import { afterAll, afterEach, inject } from 'vitest'
import { createContext, createMemoryLogger, type Context, type MemoryLogger } from '@deepseek-ai/dsh-context'
import {
  installTools,
  type InstallToolsOptions,
  type ToolExecutionInput,
  type ToolExecutionResult,
} from '@deepseek-ai/dsh-tools'
import {
  createRemoteDispatch,
  createToolWorker,
  type RemoteDispatch,
  type RemoteDispatchOptions,
  type ToolWorker,
  type ToolWorkerOptions,
} from '@deepseek-ai/dsh-dispatch-bullmq'
import { spawnTsChild } from '../../../../../test-support/ts-child.ts'
import { recorder, remoteTools, type Recorder } from './remote-tools.ts'

const cleanups: (() => Promise<void> | void)[] = []
afterEach(async () => {
  const pending = cleanups.splice(0).reverse()
  for (const cleanup of pending) await cleanup()
}, 30_000)
const fileCleanups: (() => Promise<void>)[] = []
afterAll(async () => {
  for (const cleanup of fileCleanups.splice(0).reverse()) await cleanup()
}, 30_000)

export const redisUrl = (): string => inject('redisUrl')

/** A queue of its own per test: tests run side by side on one Redis. */
export const uniqueQueue = (): string => `t-${randomUUID().slice(0, 8)}`

export interface Caller {
  readonly ctx: Context
  readonly logger: MemoryLogger
  readonly dispatch: RemoteDispatch
  /** What the calling process's own bodies recorded: nothing, when every call went remote. */
  readonly rec: Recorder
  execute(input: ToolExecutionInput): Promise<ToolExecutionResult>
}

/** A calling process: tools installed, the test tools registered, remote dispatch installed. */
export async function caller(
  queueName: string,
  options: Partial<RemoteDispatchOptions> = {},
  tools: InstallToolsOptions = {},
): Promise<Caller> {
  const logger = createMemoryLogger()
  const ctx = createContext({ logger })
  installTools(ctx, tools)
  const rec = recorder(redisUrl(), queueName, 'caller')
  for (const tool of remoteTools(rec)) ctx.tools.register(tool)
  const dispatch = createRemoteDispatch({
    connection: redisUrl(),
    queueName,
    remote: [
      'echo',
      'square',
      'increment',
      'wait',
      'steps',
      'long_steps',
      'fail',
      'bigint',
      'notes',
      'missing_*',
    ],
    checkIntervalMs: 100,
    ...options,
  })
  cleanups.push(async () => {
    await dispatch.close()
    rec.redis.disconnect()
  })
  dispatch.install(ctx)
  await dispatch.ready
  return { ctx, logger, dispatch, rec, execute: (input) => ctx.tools.execute(input) }
}

/** A worker in this process. */
export async function localWorker(
  queueName: string,
  name = 'local',
  options: Partial<ToolWorkerOptions> = {},
): Promise<{ worker: ToolWorker; rec: Recorder }> {
  const rec = recorder(redisUrl(), queueName, name)
  const worker = createToolWorker({
    connection: redisUrl(),
    queueName,
    name,
    tools: remoteTools(rec),
    concurrency: 4,
    ...options,
  })
  cleanups.push(async () => {
    await worker.close()
    rec.redis.disconnect()
  })
  await worker.ready
  return { worker, rec }
}

const FIXTURE = fileURLToPath(new URL('../fixtures/worker-process.mjs', import.meta.url))
const PACKAGE_JSON = new URL('../../package.json', import.meta.url)

export interface WorkerProcess {
  readonly child: ChildProcess
  readonly name: string
  readonly ready: Promise<void>
  /** SIGKILL: no cleanup, no goodbye; its job locks simply stop being renewed. */
  kill(): Promise<void>
}

/** A worker in its own process (test/fixtures/worker-process.mjs). */
export function spawnWorker(
  queueName: string,
  name: string,
  options: { lockDurationMs: number; concurrency: number; forFile?: boolean },
): WorkerProcess {
  const { child, stderr } = spawnTsChild({
    script: FIXTURE,
    args: [redisUrl(), queueName, name, String(options.lockDurationMs), String(options.concurrency)],
    packageJson: PACKAGE_JSON,
  })
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const ready = new Promise<void>((resolve, reject) => {
    let out = ''
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString()
      if (out.includes('ready\n')) resolve()
    })
    child.once('exit', (code, signal) =>
      reject(new Error(`worker ${name} exited (${code ?? signal}) before it was ready: ${stderr()}`)),
    )
  })
  ready.catch(() => {})
  const kill = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
    await exited
  }
  ;(options.forFile === true ? fileCleanups : cleanups).push(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.stdin.end()
      await exited
    }
  })
  return { child, name, ready, kill }
}

/** Blocks until `count` entries are in a recorder list (BLPOP-free: LRANGE after each push). */
export async function waitForEntries(rec: Recorder, list: string, count: number): Promise<string[]> {
  const key = `${rec.base}:${list}`
  const blocking = rec.redis.duplicate()
  try {
    // a copy list per waiter would need cleanup; poll the length, blocking on a notification list
    for (;;) {
      const entries = await rec.redis.lrange(key, 0, -1)
      if (entries.length >= count) return entries
      await blocking.blpop(`${key}:never`, 0.05)
    }
  } finally {
    blocking.disconnect()
  }
}

let nextId = 0
export function input(
  name: string,
  args: unknown,
  extra: Partial<ToolExecutionInput> = {},
): ToolExecutionInput {
  nextId += 1
  return { callId: `c${nextId}-${randomUUID().slice(0, 6)}`, name, arguments: JSON.stringify(args), ...extra }
}

export function codeOf(result: ToolExecutionResult): string {
  return result.isError ? (result.error.info?.code ?? 'NO_CODE') : 'OK'
}

export function nameOf(result: ToolExecutionResult): string | undefined {
  return result.isError ? result.error.info?.name : undefined
}
