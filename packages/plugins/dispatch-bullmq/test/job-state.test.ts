import { describe, expect, it } from 'vitest'
import { JOB_FIELDS, STALLED_REASON, failedOutcome, jobOutcome } from '../src/caller/job-state.ts'
import { BEGAN_FIELD, mayHaveBegun } from '../src/protocol/began-mark.ts'
import { PROTOCOL_VERSION } from '../src/protocol/job-data.ts'

// What the caller reads from one job's hash and lock. Each outcome decides what the call is told:
// `lost` is WorkerLost (INTERRUPTED when the body may have begun, else enqueued again), `gone`
// JobLost, `failed` RemoteJobFailed (INTERRUPTED: the body may have run), so a stall read as
// `failed` would blame BullMQ for a worker that died.
const fields = (values: Partial<Record<(typeof JOB_FIELDS)[number], string>>): (string | null)[] =>
  JOB_FIELDS.map((field) => values[field] ?? null)
const data = JSON.stringify({ v: PROTOCOL_VERSION, tool: 't', args: {}, callId: 'c' })
const marked = { data, [BEGAN_FIELD]: '1700000000000' }

describe('job state as the caller reads it (D8, D12)', () => {
  it('D8: a job failed as stalled (a stall check of any worker got there first) is lost, not failed', () => {
    expect(failedOutcome(STALLED_REASON, true)).toEqual({ kind: 'lost', began: true })
    expect(
      jobOutcome(
        true,
        fields({ processedOn: '1', finishedOn: '2', failedReason: STALLED_REASON, ...marked }),
        false,
      ),
    ).toEqual({ kind: 'lost', began: true })
  })

  it('D8: a job that started and holds no lock is lost; one that vanished is gone; BullMQ’s other failures are failed', () => {
    expect(jobOutcome(true, fields({ processedOn: '1', ...marked }), false)).toEqual({
      kind: 'lost',
      began: true,
    })
    expect(jobOutcome(true, fields({ processedOn: '1', ...marked }), true)).toBeUndefined()
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

  it('D12: a lost job without the worker’s started mark never began, whether the caller’s sweep or a stall check found it', () => {
    expect(jobOutcome(true, fields({ processedOn: '1', data }), false)).toEqual({
      kind: 'lost',
      began: false,
    })
    expect(
      jobOutcome(
        true,
        fields({ processedOn: '1', finishedOn: '2', failedReason: STALLED_REASON, data }),
        false,
      ),
    ).toEqual({ kind: 'lost', began: false })
  })

  it('D12: no mark proves nothing on a job of another protocol (a worker that does not mark may have run it) or on unreadable data', () => {
    const older = JSON.stringify({ v: 1, tool: 't', args: {}, callId: 'c' })
    expect(jobOutcome(true, fields({ processedOn: '1', data: older }), false)).toEqual({
      kind: 'lost',
      began: true,
    })
    expect(mayHaveBegun(null, '{')).toBe(true)
    expect(mayHaveBegun(null, null)).toBe(true)
    expect(mayHaveBegun(null, data)).toBe(false)
    expect(mayHaveBegun('1', data)).toBe(true)
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
