import {
  verifyToolPairs,
  type SessionEvent,
  type ToolCallEventData,
  type ToolResultEventData,
} from '@deepseek-ai/dsh-session'
import { AgentLoopError, type ToolCallProgressEvent } from '@deepseek-ai/dsh-agent-loop'
import { STEP, TURN, blockFor, callId, type StepTrace } from './batch-harness.ts'

interface Interval {
  readonly from: number
  readonly to: number
}

const overlaps = (a: Interval, b: Interval): boolean => a.from < b.to && b.from < a.to

/**
 * Every property of one step's trace, as a list of problems (empty when the step was correct):
 * pool cap, barriers, resource keys, oracle modes at start (T21, T24), model-order commits and
 * session records (T25, T28, T29), one result per call, abort semantics (T26), contexts and
 * `concludesTurn` (T27), plus the quiescent-point checks the harness made (rolling pool, T23).
 */
export function checkStepTrace(trace: StepTrace): string[] {
  const { spec, entries, results } = trace
  const n = spec.calls.length
  const problems: string[] = [...trace.violations]
  if (trace.failure !== undefined) return [...problems, `the batch rejected: ${String(trace.failure.error)}`]
  const progress = entries.flatMap((entry) =>
    entry.kind === 'progress' ? [{ clock: entry.clock, event: entry.event, oracle: entry.oracleMode }] : [],
  )
  const of = <T extends ToolCallProgressEvent['type']>(type: T) =>
    progress.filter(
      (p): p is typeof p & { event: Extract<ToolCallProgressEvent, { type: T }> } => p.event.type === type,
    )

  const start = new Map<number, { clock: number; mode: 'parallel' | 'exclusive' }>()
  for (const p of of('tool-call-start')) {
    if (start.has(p.event.index)) problems.push(`call ${p.event.index} started twice`)
    start.set(p.event.index, { clock: p.clock, mode: p.event.mode })
    if (p.event.mode !== p.oracle)
      problems.push(
        `call ${p.event.index} started as ${p.event.mode} but its tool said ${p.oracle} at that moment (T21/T24)`,
      )
  }
  const settledAt = new Map(of('tool-call-settled').map((p) => [p.event.index, p.clock]))
  const ends = of('tool-call-end')
  const endAt = new Map(ends.map((p) => [p.event.index, p.clock]))
  const abortAt = entries.find((entry) => entry.kind === 'abort')?.clock ?? Infinity

  // exactly one committed result per call, in model order (T25)
  if (results.length !== n) problems.push(`${results.length} results for ${n} calls`)
  if (ends.map((p) => p.event.index).join() !== [...Array(n).keys()].join()) {
    problems.push(`tool-call-end order ${ends.map((p) => p.event.index).join(',')} is not model order`)
  }
  const starts = of('tool-call-start').map((p) => p.event.index)
  if (starts.some((index, k) => index !== k))
    problems.push(`calls started out of model order: ${starts.join(',')}`)

  // pool cap (T23) on the scheduler's view and on the bodies themselves
  let inPool = 0
  let peak = 0
  for (const p of progress) {
    if (p.event.type === 'tool-call-start' && p.event.mode === 'parallel') inPool++
    if (p.event.type === 'tool-call-settled' && start.get(p.event.index)?.mode === 'parallel') inPool--
    peak = Math.max(peak, inPool)
  }
  if (peak > spec.cap) problems.push(`${peak} parallel calls in the pool, cap ${spec.cap}`)
  const body = new Map<number, Interval>()
  const bodyStartAt = new Map<number, number>()
  let parallelBodies = 0
  for (const entry of entries) {
    const parallel =
      (entry.kind === 'body-start' || entry.kind === 'body-end') &&
      start.get(entry.index)?.mode === 'parallel'
    if (entry.kind === 'body-start') {
      bodyStartAt.set(entry.index, entry.clock)
      if (parallel && ++parallelBodies > spec.cap)
        problems.push(`${parallelBodies} parallel bodies running at once, cap ${spec.cap}`)
    }
    if (entry.kind === 'body-end') {
      if (parallel) parallelBodies--
      body.set(entry.index, { from: bodyStartAt.get(entry.index)!, to: entry.clock })
    }
  }

  for (const [index, { clock, mode }] of start) {
    const end = endAt.get(index) ?? Infinity
    if (mode === 'exclusive') {
      if (spec.async === true) {
        // T22 with pipelined commits (T61): the scheduler's commit is the append of the result,
        // and the call's end is reported once that is durable; what waits for it is the next body,
        // not the next start: the exclusive body runs after every earlier end, and every later
        // body after its own end.
        const ownStart = bodyStartAt.get(index)
        if (ownStart !== undefined)
          for (let j = 0; j < index; j++)
            if (!((endAt.get(j) ?? Infinity) < ownStart))
              problems.push(`exclusive body ${index} started before call ${j} committed`)
        for (const [j, at] of bodyStartAt)
          if (j > index && !(end < at))
            problems.push(`body ${j} started while exclusive call ${index} had not committed`)
      } else {
        // T22: after everything before it committed, and alone until it commits
        for (let j = 0; j < index; j++)
          if (!((endAt.get(j) ?? Infinity) < clock))
            problems.push(`exclusive call ${index} started before call ${j} committed`)
        for (const [j, other] of start)
          if (j !== index && other.clock > clock && other.clock < end)
            problems.push(`call ${j} started while exclusive call ${index} had not committed`)
      }
      const own = body.get(index)
      if (own !== undefined)
        for (const [j, other] of body)
          if (j !== index && overlaps(own, other))
            problems.push(`body ${j} overlapped exclusive body ${index}`)
    } else {
      // same-key parallel calls never overlap
      for (const [j, other] of start) {
        if (j <= index || other.mode !== 'parallel') continue
        if (!trace.keysOf(index).some((key) => trace.keysOf(j).includes(key))) continue
        const a = { from: clock, to: settledAt.get(index) ?? Infinity }
        const b = { from: other.clock, to: settledAt.get(j) ?? Infinity }
        if (overlaps(a, b)) problems.push(`calls ${index} and ${j} share a key and overlapped`)
        const bodyA = body.get(index)
        const bodyB = body.get(j)
        if (bodyA !== undefined && bodyB !== undefined && overlaps(bodyA, bodyB))
          problems.push(`bodies ${index} and ${j} share a key and overlapped`)
      }
    }
    if (clock > abortAt) problems.push(`call ${index} started after the abort`)
  }

  // policy stages in model order (T25): each pre-execute after its start, none out of order
  const stage = (kind: 'pre-enter' | 'pre-exit' | 'post-enter' | 'post-exit') =>
    new Map(entries.flatMap((e) => (e.kind === kind ? [[e.index, e.clock] as const] : [])))
  const preEnter = stage('pre-enter')
  const preExit = stage('pre-exit')
  const order = (kind: string) => entries.flatMap((e) => (e.kind === kind && 'index' in e ? [e.index] : []))
  for (const kind of ['pre-enter', 'post-enter']) {
    const seen = order(kind)
    if (seen.some((index, k) => k > 0 && index <= seen[k - 1]!))
      problems.push(`${kind} order ${seen.join(',')} is not model order`)
  }
  for (const [index, clock] of preEnter)
    if (!((start.get(index)?.clock ?? Infinity) < clock))
      problems.push(`pre-execute of ${index} ran before it started`)
  // A stage that had not finished when the abort came fails closed (it may even begin after it:
  // a body done before the abort still has its result checked, by then under an aborted signal).
  const cut = (entered: number | undefined, exited: number | undefined) =>
    entered !== undefined && abortAt < (exited ?? Infinity)

  // results (T16, T26): what each call should have ended with
  spec.calls.forEach((call, index) => {
    const result = results[index]
    if (result === undefined) return
    const code = result.isError ? result.error.info?.code : 'OK'
    const bodyEnd = entries.find((entry) => entry.kind === 'body-end' && entry.index === index)
    const outcome = {
      ok: 'OK',
      context: 'OK',
      conclude: 'OK',
      reject: 'TOOL_FAILED',
      throw: 'TOOL_FAILED',
      'bad-output': 'INVALID_TOOL_OUTPUT',
    }[call.outcome]
    let expected: string
    if (!start.has(index)) expected = 'ABORTED_BEFORE_DISPATCH'
    else if (call.kind === 'missing') expected = 'UNKNOWN_TOOL'
    else if (call.kind === 'bad-json') expected = 'INVALID_ARGUMENTS'
    else if (cut(preEnter.get(index), preExit.get(index))) expected = 'ABORTED_BEFORE_DISPATCH'
    else if (spec.policies && call.pre === 'deny') expected = 'DENIED'
    // T38: a started body the harness releases within the abort grace is committed as it is (a
    // rejection after the abort is ABORTED), and its post-execute still runs to the end
    else if (bodyEnd?.kind === 'body-end' && bodyEnd.aborted)
      expected = outcome === 'TOOL_FAILED' ? 'ABORTED' : outcome
    else expected = outcome
    if (code !== expected) problems.push(`call ${index} ended ${code}, expected ${expected}`)
    if (!start.has(index) && abortAt === Infinity)
      problems.push(`call ${index} never started and there was no abort`)
  })

  // contexts (T27): handed over in model order, after the whole batch committed
  const lastEnd = Math.max(...ends.map((p) => p.clock))
  const contexts = entries.filter((entry) => entry.kind === 'context')
  const expectedContexts = spec.calls.flatMap((call, index) =>
    call.outcome === 'context' &&
    bodyStartAt.has(index) &&
    call.kind !== 'missing' &&
    call.kind !== 'bad-json'
      ? [`context of ${index}`]
      : [],
  )
  if (contexts.map((c) => c.text).join('|') !== expectedContexts.join('|')) {
    problems.push(`contexts ${contexts.map((c) => c.text).join('|')} expected ${expectedContexts.join('|')}`)
  }
  if (contexts.some((c) => c.clock < lastEnd))
    problems.push('a context was accepted before the batch committed')
  const concludes = results.some((r) => !r.isError && r.concludesTurn === true)
  if (trace.concludesTurn !== concludes)
    problems.push(`concludesTurn ${trace.concludesTurn}, results say ${concludes}`)
  results.forEach((r, index) => {
    const wants = spec.calls[index]!.outcome === 'conclude' && !r.isError
    if ((r.isError ? false : r.concludesTurn === true) !== wants)
      problems.push(`call ${index} concludesTurn mismatch`)
  })

  problems.push(...checkSessionMapping(trace.session.events(), trace, start))
  return problems
}

/** Recorded timings: three finite, non-negative numbers of milliseconds (their values are the machine's). */
function timingsProblem(value: unknown): string | undefined {
  const timings = value as Record<string, unknown> | undefined
  if (typeof timings !== 'object' || timings === null) return 'no timings'
  const keys = Object.keys(timings).sort().join(',')
  if (keys !== 'commitMs,queueMs,runMs') return `timings keys ${keys}`
  for (const key of ['queueMs', 'runMs', 'commitMs']) {
    const ms = timings[key]
    if (typeof ms !== 'number' || !Number.isFinite(ms) || ms < 0) return `timings.${key} ${String(ms)}`
  }
  return undefined
}

/**
 * T28/T29: the exact records, in model order, citing their calls; and the replay check. A call that
 * started records the mode it started in, and its result how long it queued, ran and waited.
 */
function checkSessionMapping(
  events: readonly SessionEvent[],
  trace: StepTrace,
  start: ReadonlyMap<number, { readonly mode: 'parallel' | 'exclusive' }>,
): string[] {
  const problems: string[] = []
  const blocks = trace.spec.calls.map(blockFor)
  const calls = events.filter((e) => e.type === 'tool/call')
  const results = events.filter((e) => e.type === 'tool/result')
  calls.forEach((event, index) => {
    const block = blocks[index]
    // T49: the key the body saw, `<session id>:<call id>`
    const key = (event.data as { idempotencyKey?: unknown }).idempotencyKey
    if (block !== undefined && (typeof key !== 'string' || !key.endsWith(`:${block.id}`)))
      problems.push(`tool/call ${index} idempotencyKey ${JSON.stringify(key)}`)
    const expected = block && {
      turn: TURN,
      step: STEP,
      callId: block.id,
      name: block.name,
      arguments: block.arguments,
      ...(start.has(index) ? { mode: start.get(index)!.mode } : {}),
      idempotencyKey: key,
    }
    if (JSON.stringify(event.data) !== JSON.stringify(expected))
      problems.push(`tool/call ${index} data ${JSON.stringify(event.data)}`)
  })
  if (calls.length !== blocks.length)
    problems.push(`${calls.length} tool/call events for ${blocks.length} calls`)
  results.forEach((event, index) => {
    const data = event.data as unknown as ToolResultEventData
    const result = trace.results[index]
    const call = calls[index]
    if (result === undefined || call === undefined) return
    if (data.message.content[0]?.callId !== callId(index))
      problems.push(`tool/result ${index} answers ${data.message.content[0]?.callId}`)
    if (
      JSON.stringify(event.sourceEventSeqs) !== JSON.stringify([call.seq]) ||
      event.surfaceOp !== 'append'
    ) {
      problems.push(
        `tool/result ${index} cites ${JSON.stringify(event.sourceEventSeqs)} with ${event.surfaceOp}`,
      )
    }
    const { timings, ...rest } = data
    if (start.has(index)) {
      const problem = timingsProblem(timings)
      if (problem !== undefined) problems.push(`tool/result ${index}: ${problem}`)
    } else if (timings !== undefined) {
      problems.push(`tool/result ${index} of a call that never started has timings`)
    }
    const expected = {
      turn: TURN,
      step: STEP,
      message: {
        role: 'tool',
        content: [
          { type: 'tool-result', callId: callId(index), content: result.content, isError: result.isError },
        ],
      },
      ...(result.isError && result.error.info ? { error: result.error.info } : {}),
      ...(result.meta === undefined ? {} : { meta: result.meta }),
    }
    if (JSON.stringify(rest) !== JSON.stringify(expected))
      problems.push(`tool/result ${index} data ${JSON.stringify(data)}`)
  })
  if (results.length !== blocks.length)
    problems.push(`${results.length} tool/result events for ${blocks.length} calls`)
  const report = verifyToolPairs(events)
  if (!report.ok) problems.push(...report.problems.map((p) => `verifyToolPairs: ${p.message}`))
  return problems
}

/**
 * A step whose session refused one append: the batch rejects, and either every recorded call has its
 * result (the error is the session's own) or the error is `UNRECORDED_RESULTS` naming exactly the
 * calls left unanswered, which are the tail of the step: nothing recorded out of model order.
 */
export function checkFaultTrace(trace: StepTrace): string[] {
  const fault = trace.spec.fault!
  const problems: string[] = [...trace.violations]
  if (trace.failure === undefined)
    return [...problems, 'the batch resolved although the session refused an append']
  const { error } = trace.failure
  const events = trace.session.events()
  const report = verifyToolPairs(events)
  const unanswered = report.problems.filter((p) => p.kind === 'unanswered-call').map((p) => p.callId)
  for (const p of report.problems)
    if (p.kind !== 'unanswered-call') problems.push(`verifyToolPairs: ${p.message}`)

  const recorded = events
    .filter((e) => e.type === 'tool/call')
    .map((e) => (e.data as unknown as ToolCallEventData).callId)
  if (recorded.some((id, k) => id !== callId(k)))
    problems.push(`recorded calls ${recorded.join(',')} are not a model-order prefix`)
  const answered = events
    .filter((e) => e.type === 'tool/result')
    .map((e) => (e.data as unknown as ToolResultEventData).message.content[0]!.callId)
  if (answered.some((id, k) => id !== callId(k)))
    problems.push(`recorded results ${answered.join(',')} are not a model-order prefix`)

  const unrecorded = AgentLoopError.isInstance(error) && error.code === 'UNRECORDED_RESULTS'
  if (unrecorded) {
    const named = (error.details.unanswered ?? []).map((u) => u.callId)
    if (named.length === 0 || named.join() !== unanswered.join())
      problems.push(`error names ${named.join(',')}, log lacks results for ${unanswered.join(',')}`)
  } else if (!report.ok)
    problems.push(`the log is not replayable and the error does not say so: ${String(error)}`)

  // what each kind of fault must lead to
  const ends = trace.entries.flatMap((e) =>
    e.kind === 'progress' && e.event.type === 'tool-call-end' ? [e.event.callId] : [],
  )
  if (ends.join() !== answered.join())
    problems.push(`tool-call-end events for ${ends.join(',')} but results recorded for ${answered.join(',')}`)
  // An asynchronous session writes the calls that meet while a write runs in one commit (all or
  // none): the refused call's write may take earlier calls with it, never later ones.
  if (
    fault.type === 'tool/call' &&
    (trace.spec.async === true ? recorded.length > fault.index : recorded.length !== fault.index)
  )
    problems.push(`${recorded.length} calls recorded, the session refused call ${fault.index}`)
  if (fault.type === 'tool/result' && fault.times === 'once' && (unrecorded || !report.ok))
    problems.push('a one-off refusal was not repaired')
  // (over an asynchronous session the refused write may hold earlier results too, T61)
  const firstUnanswered =
    unanswered[0] === undefined ? undefined : Number(unanswered[0].slice('call-'.length))
  if (
    fault.type === 'tool/result' &&
    fault.times === 'always' &&
    (!unrecorded ||
      (trace.spec.async === true
        ? !unanswered.includes(callId(fault.index)) || firstUnanswered! > fault.index
        : unanswered[0] !== callId(fault.index)))
  ) {
    problems.push(`an unanswerable call ${fault.index} was not reported first: ${String(error)}`)
  }
  // an asynchronous session names the append and keeps the store's error as its cause
  const passedOn = (e: unknown): boolean =>
    (e as Error | undefined)?.message?.startsWith('disk full') === true ||
    (trace.spec.async === true && passedOn((e as { cause?: unknown } | undefined)?.cause))
  if (!unrecorded && !passedOn(error))
    problems.push(`the session's error was not passed on: ${String(error)}`)
  return problems
}
