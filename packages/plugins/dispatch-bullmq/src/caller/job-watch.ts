import type { Redis } from 'ioredis'
import type { DispatchKeys } from '../protocol/connection.ts'
import { JOB_FIELDS, STALLED_REASON, jobOutcome, type JobOutcome } from './job-state.ts'

export interface Watched {
  readonly jobId: string
  readonly promise: Promise<JobOutcome>
  /** The job is in Redis now: from here on the sweeps may judge it. */
  enqueued(): void
  settle(outcome: JobOutcome): void
}

export interface WatchOptions {
  /**
   * Whether a `failed` event settles the call (default true). False for a job enqueued again after
   * its worker died (D10): the lost job's own event may still be on its way, so only the sweep,
   * which reads the job's hash, judges the new one.
   */
  readonly trustFailedEvents?: boolean
}

export interface JobWatch {
  /** Waits for the job's outcome; `onProgress` gets what its worker reports meanwhile (D9). */
  watch(jobId: string, onProgress?: (data: unknown) => void, options?: WatchOptions): Watched
  /** From QueueEvents: a job finished. */
  completed(jobId: string, reply: unknown): void
  failed(jobId: string, reason: string): void
  /** From QueueEvents: a job's worker reported progress. */
  progress(jobId: string, data: unknown): void
  /** Redis answered something: it is reachable. */
  contact(): void
  /** Settles every waiting call with `closed` and stops sweeping. */
  close(): void
}

interface Entry extends Watched {
  queued: boolean
  done: boolean
  readonly onProgress: ((data: unknown) => void) | undefined
  readonly trustFailedEvents: boolean
}

/**
 * The calls waiting for their jobs, and the one timer that watches them. Results normally arrive
 * as QueueEvents (`completed`, `failed`; a job failed as stalled asks for a sweep at once, since
 * only its hash says whether its body began); every `checkIntervalMs` a sweep reads every waiting
 * job's hash and lock in one MULTI, which settles what an event did not (an event missed while
 * reconnecting, a job finished before this process watched it) and finds jobs whose worker died:
 * started, unfinished, unlocked, with or without the worker's started mark (D11). If Redis cannot be reached for `unreachableAfterMs`, every waiting
 * call is settled `unreachable`: no call waits forever. The timer runs only while calls wait, and
 * does not keep the process alive.
 */
export function createJobWatch(options: {
  readonly commands: Redis
  readonly keys: DispatchKeys
  readonly checkIntervalMs: number
  readonly unreachableAfterMs: number
}): JobWatch {
  const { commands, keys, checkIntervalMs, unreachableAfterMs } = options
  const waiting = new Map<string, Entry[]>()
  let timer: NodeJS.Timeout | undefined
  let lastContact = Date.now()
  let sweeping = false
  let sweepAgain = false
  let closed = false

  const remove = (entry: Entry): void => {
    const list = waiting.get(entry.jobId)
    if (list === undefined) return
    const at = list.indexOf(entry)
    if (at >= 0) list.splice(at, 1)
    if (list.length === 0) waiting.delete(entry.jobId)
    if (waiting.size === 0 && timer !== undefined) {
      clearInterval(timer)
      timer = undefined
    }
  }

  /** Events settle every call on the job id at once; a sweep only those known to be enqueued. */
  const settleAll = (
    jobId: string,
    outcome: JobOutcome,
    which: (entry: Entry) => boolean = () => true,
  ): void => {
    for (const entry of [...(waiting.get(jobId) ?? [])]) if (which(entry)) entry.settle(outcome)
  }
  const enqueued = (entry: Entry): boolean => entry.queued

  const sweep = async (): Promise<void> => {
    if (sweeping) {
      // one that started before what asked for this one may have read the job before it changed
      sweepAgain = true
      return
    }
    sweepAgain = false
    const entries = [...waiting.values()].flat().filter((entry) => entry.queued && !entry.done)
    if (entries.length === 0) return
    sweeping = true
    try {
      const ids = [...new Set(entries.map((entry) => entry.jobId))]
      const multi = commands.multi()
      for (const id of ids)
        multi
          .exists(keys.job(id))
          .hmget(keys.job(id), ...JOB_FIELDS)
          .exists(keys.lock(id))
      const replies = (await multi.exec()) ?? []
      lastContact = Date.now()
      ids.forEach((id, index) => {
        const read = (offset: number): unknown => {
          const [error, value] = replies[index * 3 + offset] ?? [new Error('no reply'), undefined]
          if (error) throw error
          return value
        }
        const outcome = jobOutcome(read(0) === 1, read(1) as (string | null)[], read(2) === 1)
        if (outcome !== undefined) settleAll(id, outcome, enqueued)
      })
    } catch {
      // counted by tick(): a sweep that fails or never answers does not update lastContact
    } finally {
      sweeping = false
      if (sweepAgain) void sweep()
    }
  }

  const tick = (): void => {
    const silent = Date.now() - lastContact
    if (silent >= unreachableAfterMs) {
      for (const entry of [...waiting.values()].flat()) entry.settle({ kind: 'unreachable', ms: silent })
      return
    }
    void sweep()
  }

  return {
    watch(jobId, onProgress, options) {
      let resolve!: (outcome: JobOutcome) => void
      const promise = new Promise<JobOutcome>((r) => (resolve = r))
      const entry: Entry = {
        jobId,
        promise,
        queued: false,
        done: false,
        onProgress,
        trustFailedEvents: options?.trustFailedEvents ?? true,
        enqueued() {
          entry.queued = true
        },
        settle(outcome) {
          if (entry.done) return
          entry.done = true
          remove(entry)
          resolve(outcome)
        },
      }
      if (closed) {
        entry.settle({ kind: 'closed' })
        return entry
      }
      const list = waiting.get(jobId)
      if (list === undefined) waiting.set(jobId, [entry])
      else list.push(entry)
      if (timer === undefined) {
        // silence is measured from when there was something to wait for
        lastContact = Date.now()
        timer = setInterval(tick, checkIntervalMs)
        timer.unref()
      }
      return entry
    },
    completed(jobId, reply) {
      lastContact = Date.now()
      settleAll(jobId, { kind: 'reply', reply })
    },
    failed(jobId, reason) {
      lastContact = Date.now()
      // a stall says that the worker stopped, not whether the body began: the job's mark says (D12)
      if (reason === STALLED_REASON) void sweep()
      else settleAll(jobId, { kind: 'failed', reason }, (entry) => entry.trustFailedEvents)
    },
    progress(jobId, data) {
      lastContact = Date.now()
      for (const entry of [...(waiting.get(jobId) ?? [])]) entry.onProgress?.(data)
    },
    contact() {
      lastContact = Date.now()
    },
    close() {
      closed = true
      for (const entry of [...waiting.values()].flat()) entry.settle({ kind: 'closed' })
      if (timer !== undefined) clearInterval(timer)
      timer = undefined
    },
  }
}
