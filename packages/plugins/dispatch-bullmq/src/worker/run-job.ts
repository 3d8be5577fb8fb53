import type { Context } from '@deepseek-ai/dsh-context'
import { deepFreeze, snapshotJsonValue } from '@deepseek-ai/dsh-session'
import {
  describeThrown,
  toolMessages,
  type AnyToolDefinition,
  type ToolExecContext,
  type ToolProgressReport,
} from '@deepseek-ai/dsh-tools'
import type { MarkVerdict } from '../protocol/began-mark.ts'
import { readJobData, PROTOCOL_VERSION, type RemoteJobData } from '../protocol/job-data.ts'
import type { RemoteReply } from '../protocol/reply.ts'
import { createWorkerProgress } from './worker-progress.ts'

export interface RunJobEnvironment {
  readonly tools: ReadonlyMap<string, AnyToolDefinition>
  readonly ctx: Context
  readonly maxResultBytes: number
  /**
   * D11: records in Redis that the job's body begins, if this worker still holds the job under
   * `token` and the caller has not cancelled it (one atomic step, `MARK_BEGAN_SCRIPT`).
   */
  readonly markBegan: (jobId: string, token: string) => Promise<MarkVerdict>
  /** The least time between two progress reports sent for one job (D9). */
  readonly progressIntervalMs: number
  /** Pauses the tests inject between the steps of a job; undefined in production. */
  readonly pauses: WorkerPauses | undefined
}

/**
 * Where a test can hold a job (and SIGKILL its worker there): `claimed`, the job is taken and its
 * body has not been marked as begun; `marked`, the mark is written and the body's first
 * instruction has not run; `answered`, the body settled and its reply is not yet handed to BullMQ
 * (which stores it in the script that releases the lock); `unclaimed`, the mark was refused
 * because this worker no longer holds the job (the body will not start).
 */
export type WorkerPausePoint = 'claimed' | 'marked' | 'answered' | 'unclaimed'
export type WorkerPauses = (
  point: WorkerPausePoint,
  job: { readonly id: string; readonly data: unknown },
) => Promise<void> | undefined

/** The worker no longer holds the job (D11): its body was not started, and no reply can be stored. */
export class ClaimLost extends Error {
  constructor(jobId: string) {
    super(`job ${jobId} is no longer held by this worker; its body was not started`)
    this.name = 'ClaimLost'
  }
}

/** What runJob needs of the BullMQ job besides its id and data. */
export interface JobHandle {
  readonly id: string
  /** The lock token BullMQ claimed the job with (its processor's second argument). */
  readonly token: string | undefined
  readonly data: unknown
  /** Aborts on the caller's cancellation (BullMQ's job signal). */
  readonly signal: AbortSignal | undefined
  /** Sends a progress report as the job's progress (`job.updateProgress`). */
  readonly updateProgress: (report: ToolProgressReport) => Promise<unknown>
}

/**
 * One job on the worker: read the call, refuse what cannot run (unknown tool, past its deadline,
 * cancelled before it started), record that the body begins (D11: only while this worker still
 * holds the job and the caller has not cancelled it, in one atomic step; otherwise the body never
 * starts), run the body with a signal that aborts on the caller's cancellation (BullMQ's job
 * signal) and at the deadline, send its progress reports as the job's progress (D9), and answer
 * with a reply the caller can check. The value is snapshotted here to lossless JSON, with the
 * local pipeline's messages, because JSON is what crosses; the caller checks it again (schema,
 * size, `toContent`) as a local value. Every outcome is a reply, so BullMQ only ever fails a job
 * that no worker finished, except one this worker lost its hold of before the body began: that
 * throws `ClaimLost`, and BullMQ cannot store anything for it (the lock is not this worker's).
 */
export async function runJob(environment: RunJobEnvironment, job: JobHandle): Promise<RemoteReply> {
  const reply = await startJob(environment, job)
  await environment.pauses?.('answered', job)
  return reply
}

async function startJob(environment: RunJobEnvironment, job: JobHandle): Promise<RemoteReply> {
  const { id: jobId, signal: jobSignal } = job
  const read = readJobData(job.data)
  if (!read.ok) return { v: PROTOCOL_VERSION, kind: 'bad-job', message: read.problem }
  const { data } = read
  const tool = environment.tools.get(data.tool)
  if (tool === undefined) return { v: PROTOCOL_VERSION, kind: 'unknown-tool' }
  if (data.deadline !== undefined && Date.now() >= data.deadline)
    return { v: PROTOCOL_VERSION, kind: 'not-started', reason: 'expired' }

  // listening before the mark: a cancellation that lands between the mark and the body still aborts it
  const controller = new AbortController()
  const onJobAbort = (): void => controller.abort(jobSignal?.reason)
  jobSignal?.addEventListener('abort', onJobAbort, { once: true })
  try {
    await environment.pauses?.('claimed', job)
    const verdict =
      jobSignal?.aborted === true ? 'cancelled' : await environment.markBegan(jobId, job.token ?? '')
    if (verdict === 'claim-lost') {
      await environment.pauses?.('unclaimed', job)
      throw new ClaimLost(jobId)
    }
    if (verdict === 'cancelled') return { v: PROTOCOL_VERSION, kind: 'not-started', reason: 'cancelled' }
    // the mark may be lost with this primary: a body started now could run again elsewhere
    if (verdict === 'unconfirmed') return { v: PROTOCOL_VERSION, kind: 'not-started', reason: 'unconfirmed' }
    await environment.pauses?.('marked', job)
    return await runBody(environment, job, data, tool, controller)
  } finally {
    jobSignal?.removeEventListener('abort', onJobAbort)
  }
}

async function runBody(
  environment: RunJobEnvironment,
  job: JobHandle,
  data: RemoteJobData,
  tool: AnyToolDefinition,
  controller: AbortController,
): Promise<RemoteReply> {
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
