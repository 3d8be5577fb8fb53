import type { Context } from '@deepseek-ai/dsh-context'
import { deepFreeze, snapshotJsonValue } from '@deepseek-ai/dsh-session'
import {
  describeThrown,
  toolMessages,
  type AnyToolDefinition,
  type ToolExecContext,
  type ToolProgressReport,
} from '@deepseek-ai/dsh-tools'
import { readJobData, PROTOCOL_VERSION } from '../protocol/job-data.ts'
import type { RemoteReply } from '../protocol/reply.ts'
import { createWorkerProgress } from './worker-progress.ts'

export interface RunJobEnvironment {
  readonly tools: ReadonlyMap<string, AnyToolDefinition>
  readonly ctx: Context
  readonly maxResultBytes: number
  /** Whether the caller asked to cancel this job before it started (the marker key). */
  readonly cancelledBeforeStart: (jobId: string) => Promise<boolean>
  /** The least time between two progress reports sent for one job (D9). */
  readonly progressIntervalMs: number
}

/** What runJob needs of the BullMQ job besides its id and data. */
export interface JobHandle {
  readonly id: string
  readonly data: unknown
  /** Aborts on the caller's cancellation (BullMQ's job signal). */
  readonly signal: AbortSignal | undefined
  /** Sends a progress report as the job's progress (`job.updateProgress`). */
  readonly updateProgress: (report: ToolProgressReport) => Promise<unknown>
}

/**
 * One job on the worker: read the call, refuse what cannot run (unknown tool, cancelled or past its
 * deadline before it started), run the body with a signal that aborts on the caller's cancellation
 * (BullMQ's job signal) and at the deadline, send its progress reports as the job's progress (D9),
 * and answer with a reply the caller can check. The
 * value is snapshotted here to lossless JSON, with the local pipeline's messages, because JSON is
 * what crosses; the caller checks it again (schema, size, `toContent`) as a local value. Never
 * throws: every outcome is a reply, so BullMQ only ever fails a job that no worker finished.
 */
export async function runJob(environment: RunJobEnvironment, job: JobHandle): Promise<RemoteReply> {
  const { id: jobId, signal: jobSignal } = job
  const read = readJobData(job.data)
  if (!read.ok) return { v: PROTOCOL_VERSION, kind: 'bad-job', message: read.problem }
  const { data } = read
  const tool = environment.tools.get(data.tool)
  if (tool === undefined) return { v: PROTOCOL_VERSION, kind: 'unknown-tool' }
  if (jobSignal?.aborted === true || (await environment.cancelledBeforeStart(jobId)))
    return { v: PROTOCOL_VERSION, kind: 'not-started', reason: 'cancelled' }
  if (data.deadline !== undefined && Date.now() >= data.deadline)
    return { v: PROTOCOL_VERSION, kind: 'not-started', reason: 'expired' }

  const controller = new AbortController()
  const onJobAbort = (): void => controller.abort(jobSignal?.reason)
  jobSignal?.addEventListener('abort', onJobAbort, { once: true })
  const timer =
    data.deadline === undefined
      ? undefined
      : setTimeout(
          () => controller.abort(new DOMException(`deadline passed on the worker`, 'TimeoutError')),
          data.deadline - Date.now(),
        )
  const contexts: string[] = []
  let concludes = false
  const progress = createWorkerProgress(job.updateProgress, environment.progressIntervalMs)
  const exec: ToolExecContext = {
    callId: data.callId,
    toolName: data.tool,
    signal: controller.signal,
    ctx: environment.ctx,
    turn: data.turn,
    step: data.step,
    // D9: progress crosses the queue as the job's progress; the caller reports it as its own
    reportProgress: (report) => progress.report(report),
    idempotencyKey: data.idempotencyKey ?? data.callId,
    deferContext: (text: unknown) => {
      if (typeof text !== 'string')
        throw new TypeError(`exec.deferContext(text): text must be a string, got ${typeof text}`)
      contexts.push(text)
    },
    concludeTurn: () => {
      concludes = true
    },
  }
  let value: unknown
  try {
    value = await tool.execute(deepFreeze(data.args), exec)
  } catch (error) {
    return withContexts({ v: PROTOCOL_VERSION, kind: 'thrown', message: describeThrown(error) }, contexts)
  } finally {
    progress.stop()
    if (timer !== undefined) clearTimeout(timer)
    jobSignal?.removeEventListener('abort', onJobAbort)
  }
  return valueReply(data.tool, value, contexts, concludes, environment.maxResultBytes)
}

function valueReply(
  name: string,
  value: unknown,
  contexts: string[],
  concludes: boolean,
  limit: number,
): RemoteReply {
  const extras = concludes ? { concludes: true as const } : {}
  if (value === undefined) return withContexts({ v: PROTOCOL_VERSION, kind: 'value', ...extras }, contexts)
  const snapshot = snapshotJsonValue(value)
  if (!snapshot.ok) {
    const message = toolMessages.valueNotLossless(
      name,
      snapshot.path.replace(/^\$/, 'value'),
      snapshot.reason,
    )
    return withContexts({ v: PROTOCOL_VERSION, kind: 'invalid-output', message }, contexts)
  }
  const bytes = Buffer.byteLength(JSON.stringify(snapshot.value), 'utf8')
  if (bytes > limit) {
    const message = toolMessages.resultTooLarge(name, bytes, limit, true)
    return withContexts({ v: PROTOCOL_VERSION, kind: 'invalid-output', message }, contexts)
  }
  return withContexts({ v: PROTOCOL_VERSION, kind: 'value', value: snapshot.value, ...extras }, contexts)
}

function withContexts<T extends RemoteReply>(reply: T, contexts: readonly string[]): T {
  return contexts.length === 0 ? reply : { ...reply, contexts }
}
