import { Queue, QueueEvents } from 'bullmq'
import type { Context, Disposer, WaterfallListener } from '@deepseek-ai/dsh-context'
import { describeValue } from '@deepseek-ai/dsh-llm'
import { snapshotJsonValue } from '@deepseek-ai/dsh-session'
import {
  callDefinition,
  resolveToolRuntimeScheduler,
  type ExecuteCall,
  type ToolExecutionResult,
} from '@deepseek-ai/dsh-tools'
import type { JsonObject } from '@deepseek-ai/dsh-llm'
import { DispatchError, invalidArgument } from '../errors.ts'
import { bullConnection, dispatchKeys, openClient, whenReady } from '../protocol/connection.ts'
import { RemoteFailureNames } from '../protocol/failure-names.ts'
import { createJobWatch } from './job-watch.ts'
import { readDispatchOptions, type RemoteDispatchOptions } from './read-dispatch-options.ts'
import type { DispatchRuntime } from './dispatch-runtime.ts'
import { remoteBody, type FailureSlot, type RemoteCall } from './remote-body.ts'
import { remoteFailure } from './remote-failure.ts'

/**
 * Where `install` registers the wrapper: inside every other `tools/execute` wrapper, the shipped
 * timeout wrapper (-1000) included, so nothing sits between it and the body it replaces, and
 * timeouts, metrics and user wrappers apply to remote calls as to local ones.
 */
export const REMOTE_DISPATCH_PRIORITY = -2000

export interface RemoteDispatch {
  /** Resolves once the queue is reachable; rejects when it is not. Calls made earlier wait for it. */
  readonly ready: Promise<void>
  /** The `tools/execute` wrapper; `install(ctx)` registers it. */
  readonly wrapper: WaterfallListener<[call: ExecuteCall], ToolExecutionResult>
  /** Whether calls of this tool go to the workers. */
  isRemote(toolName: string): boolean
  /** Registers the wrapper for calls made in `ctx`'s scope and below. Returns its disposer. */
  install(ctx: Context): Disposer
  /**
   * Stops dispatching: waiting calls are answered `INTERRUPTED` (`DispatcherClosed`), later remote
   * calls fail `PIPELINE_FAILED` (`DispatcherClosed`), and the connections close. Idempotent.
   */
  close(): Promise<void>
}

/**
 * Remote tool dispatch on BullMQ. Policy stays here: the wrapper runs after the pre-execute
 * listeners, approval and guards have passed the call in this process, in model order; only the
 * body moves. For a tool matched by `remote` it runs the call as one BullMQ job (job id from the
 * call id, so a second delivery runs nothing twice) on a worker made with `createToolWorker`, and
 * hands the worker's value to the pipeline, which checks it like a local value (output schema,
 * size, lossless JSON, `toContent`). The caller's abort and timeout cancel the job; a worker that
 * dies is reported `INTERRUPTED` (`WorkerLost`) once its job lock expires.
 * @example
 * const dispatch = createRemoteDispatch({ connection: 'redis://127.0.0.1:6379', remote: ['build'] })
 * dispatch.install(ctx)
 */
export function createRemoteDispatch(options: RemoteDispatchOptions): RemoteDispatch {
  const resolved = readDispatchOptions(options)
  const keys = dispatchKeys(resolved.prefix, resolved.queueName)
  const connection = bullConnection(resolved.connection)
  const commands = openClient(resolved.connection, { maxRetriesPerRequest: 1, enableOfflineQueue: false })
  commands.on('error', () => {
    // reconnects on its own; a call that needs it meanwhile fails or waits as documented
  })
  const queue = new Queue(resolved.queueName, { connection, prefix: resolved.prefix })
  queue.on('error', () => {})
  const watch = createJobWatch({
    commands,
    keys,
    checkIntervalMs: resolved.checkIntervalMs,
    unreachableAfterMs: resolved.unreachableAfterMs,
  })
  let events: QueueEvents | undefined
  let closing: Promise<void> | undefined

  const ready = (async () => {
    await whenReady(commands)
    // Read events from this moment on (the server's clock), so none is missed before the first read.
    const [seconds, micros] = (await commands.time()) as [number | string, number | string]
    const lastEventId = `${Number(seconds) * 1000 + Math.floor(Number(micros) / 1000)}-0`
    const queueEvents = new QueueEvents(resolved.queueName, {
      connection,
      prefix: resolved.prefix,
      lastEventId,
    })
    events = queueEvents
    queueEvents.on('error', () => {})
    queueEvents.on('completed', ({ jobId, returnvalue }) => watch.completed(jobId, returnvalue))
    queueEvents.on('failed', ({ jobId, failedReason }) => watch.failed(jobId, failedReason))
    queueEvents.on('progress', ({ jobId, data }) => watch.progress(jobId, data))
    await Promise.all([queueEvents.waitUntilReady(), queue.waitUntilReady()])
  })()
  ready.catch(() => {})

  const runtime: DispatchRuntime = {
    ready,
    queue,
    commands,
    keys,
    watch,
    queueName: resolved.queueName,
    namespace: resolved.namespace,
    enqueueTimeoutMs: resolved.enqueueTimeoutMs,
    retainMs: resolved.retainMs,
  }

  const wrapper: WaterfallListener<[call: ExecuteCall], ToolExecutionResult> = async (call, next) => {
    if (!resolved.isRemote(call.toolName)) return next()
    if (closing !== undefined) {
      return remoteFailure(
        'PIPELINE_FAILED',
        RemoteFailureNames.DispatcherClosed,
        `Tool "${call.toolName}" is marked remote, but remote dispatch was closed; it was not run.`,
      )
    }
    // JSON is what crosses: arguments a schema turned into objects (a Date) cannot be sent as they are
    const args = snapshotJsonValue(call.args)
    if (!args.ok) {
      return remoteFailure(
        'PIPELINE_FAILED',
        RemoteFailureNames.RemoteArgumentsNotJson,
        `Tool "${call.toolName}" is marked remote, but its validated arguments are not JSON: ${args.path.replace(/^\$/, 'args')} ${args.reason}. Remote tools need schemas whose output is plain JSON.`,
      )
    }
    const slot: FailureSlot = {}
    const definition = callDefinition(call)
    // D9: a tool whose progress restarts its timeout may run up to its hard cap; the caller's own
    // timer (reset by the worker's reports) ends it sooner when the reports stop
    const allowedMs = definition?.progressResetsTimeout?.maxMs ?? call.timeoutMs
    const remote: RemoteCall = {
      args: args.value as JsonObject,
      deadline: call.timeoutMs === undefined || allowedMs === undefined ? undefined : Date.now() + allowedMs,
      idempotent: definition?.idempotent === true,
      reattachOnly: call.reattachOnly === true,
    }
    const result = await next({ ...call, body: remoteBody(runtime, remote, slot) })
    // the pipeline words a body's throw as TOOL_FAILED (ABORTED once the call was cancelled); a
    // failure of dispatch itself keeps its own code
    if (slot.failure !== undefined && result.isError) {
      const code = result.error.info?.code
      if (code === 'TOOL_FAILED' || code === 'ABORTED') return slot.failure
    }
    return result
  }

  return {
    ready,
    wrapper,
    isRemote: resolved.isRemote,
    install(ctx) {
      if (typeof ctx !== 'object' || ctx === null || typeof (ctx as Partial<Context>).on !== 'function')
        throw invalidArgument(
          `remoteDispatch.install(ctx): ctx must be a context from createContext(), got ${describeValue(ctx)}`,
        )
      if ((ctx as { tools?: unknown }).tools === undefined)
        throw new DispatchError({
          code: 'NOT_INSTALLED',
          message: `remoteDispatch.install(ctx): scope "${ctx.scope.name}" has no ctx.tools; call installTools(ctx) first`,
        })
      // the body replacement this wrapper relies on must be understood by the copy of the tools package that runs the calls
      resolveToolRuntimeScheduler(ctx.tools)
      if (closing !== undefined)
        throw new DispatchError({
          code: 'CLOSED',
          message: 'remoteDispatch.install(ctx): remote dispatch is closed',
        })
      return ctx.on('tools/execute', wrapper, { priority: REMOTE_DISPATCH_PRIORITY })
    },
    close() {
      closing ??= (async () => {
        watch.close()
        await ready.catch(() => {})
        // BullMQ's close and disconnect wait for Redis; with Redis gone they would wait forever
        await settleWithin([events?.close(), queue.close()], 1_000)
        await settleWithin([events?.disconnect(), queue.disconnect()], 1_000)
        commands.disconnect()
      })()
      return closing
    },
  }
}

/** Waits for `work` to settle, at most `ms`. */
async function settleWithin(work: readonly (Promise<unknown> | undefined)[], ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined
  await Promise.race([Promise.allSettled(work), new Promise((resolve) => (timer = setTimeout(resolve, ms)))])
  clearTimeout(timer)
}
