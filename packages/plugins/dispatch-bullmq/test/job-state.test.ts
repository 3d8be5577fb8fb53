import { describe, expect, it } from 'vitest'
import { JOB_FIELDS, STALLED_REASON, failedOutcome, jobOutcome } from '../src/caller/job-state.ts'

// What the caller reads from one job's hash and lock. Each outcome decides what the call is told:
// `lost` is WorkerLost, `gone` JobLost, `failed` RemoteJobFailed (all INTERRUPTED: the body may have
// run), so a stall read as `failed` would blame BullMQ for a worker that died.
const fields = (values: Partial<Record<(typeof JOB_FIELDS)[number], string>>): (string | null)[] =>
  JOB_FIELDS.map((field) => values[field] ?? null)

describe('job state as the caller reads it (D8)', () => {
  it('D8: a job failed as stalled (a stall check of any worker got there first) is lost, not failed', () => {
    expect(failedOutcome(STALLED_REASON)).toEqual({ kind: 'lost' })
    expect(
      jobOutcome(true, fields({ processedOn: '1', finishedOn: '2', failedReason: STALLED_REASON }), false),
    ).toEqual({ kind: 'lost' })
  })

  it('D8: a job that started and holds no lock is lost; one that vanished is gone; BullMQ’s other failures are failed', () => {
    expect(jobOutcome(true, fields({ processedOn: '1' }), false)).toEqual({ kind: 'lost' })
    expect(jobOutcome(true, fields({ processedOn: '1' }), true)).toBeUndefined()
    expect(jobOutcome(true, fields({}), false)).toBeUndefined()
    expect(jobOutcome(false, fields({}), false)).toEqual({ kind: 'gone' })
    expect(
      jobOutcome(true, fields({ finishedOn: '2', failedReason: 'Missing lock for job 7' }), false),
    ).toEqual({
      kind: 'failed',
      reason: 'Missing lock for job 7',
    })
    expect(jobOutcome(true, fields({ finishedOn: '2', returnvalue: '{"v":1}' }), false)).toEqual({
      kind: 'reply',
      reply: { v: 1 },
    })
  })

  it('D8: a finished job whose stored result is not JSON is failed (INTERRUPTED), never read as a reply', () => {
    expect(
      jobOutcome(true, fields({ processedOn: '1', finishedOn: '2', returnvalue: '{"v":1' }), false),
    ).toEqual({
      kind: 'failed',
      reason: 'its stored result is not JSON',
    })
  })
})
