import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { z } from 'zod'
import { createContext, createMemoryLogger, type Context } from '@deepseek-ai/dsh-context'
import {
  createScriptedModel,
  textBlock,
  textOf,
  toolCallBlock,
  toolCallsOf,
  type AssistantMessage,
  type ToolCallBlock,
} from '@deepseek-ai/dsh-llm'
import { createMemorySession, verifyToolPairs, type Session } from '@deepseek-ai/dsh-session'
import { defineTool, installTools } from '@deepseek-ai/dsh-tools'
import {
  AgentLoopError,
  createAgent,
  historyFromSession,
  resumeAgent,
  type AgentEvent,
  type TurnResult,
} from '@deepseek-ai/dsh-agent-loop'
import { notEager, pairedForProvider, resultCodes } from './support/eager.ts'
import { quiesce } from './support/fixtures.ts'
import { createStreamingModel, type StreamControl } from './support/stream-model.ts'

type CallKind = 'parallel' | 'exclusive' | 'lazy' | 'bad-json'

interface CallSpec {
  readonly kind: CallKind
  readonly fails: boolean
  /** Text deltas the model writes before this call. */
  readonly textBefore: readonly string[]
}

type Ending =
  | { readonly kind: 'finish' }
  | { readonly kind: 'length' }
  /** The stream fails, or the turn is aborted, once `after` calls were yielded. */
  | { readonly kind: 'error' | 'abort'; readonly after: number }

interface StreamSpec {
  readonly calls: readonly CallSpec[]
  readonly textAfter: readonly string[]
  readonly ending: Ending
  readonly cap: number
}

/** Random split points: a sentence cut into deltas anywhere (possibly into empty pieces). */
const deltas = fc
  .tuple(
    fc.constantFrom('', 'Let me look. ', 'Checking the files now, then the tests.'),
    fc.array(fc.nat(40), { maxLength: 3 }),
  )
  .map(([text, cuts]) => {
    const at = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b)
    const pieces: string[] = []
    let from = 0
    for (const cut of at) {
      pieces.push(text.slice(from, cut))
      from = cut
    }
    pieces.push(text.slice(from))
    return text === '' ? [] : pieces
  })

const specArb: fc.Arbitrary<StreamSpec> = fc
  .record({
    calls: fc.array(
      fc.record({
        kind: fc.oneof(
          { weight: 5, arbitrary: fc.constant<CallKind>('parallel') },
          { weight: 2, arbitrary: fc.constant<CallKind>('exclusive') },
          { weight: 2, arbitrary: fc.constant<CallKind>('lazy') },
          { weight: 1, arbitrary: fc.constant<CallKind>('bad-json') },
        ),
        fails: fc.oneof(
          { weight: 4, arbitrary: fc.constant(false) },
          { weight: 1, arbitrary: fc.constant(true) },
        ),
        textBefore: deltas,
      }),
      { maxLength: 7 },
    ),
    textAfter: deltas,
    cap: fc.integer({ min: 1, max: 4 }),
    ending: fc.oneof(
      { weight: 3, arbitrary: fc.constant<Ending>({ kind: 'finish' }) },
      { weight: 1, arbitrary: fc.constant<Ending>({ kind: 'length' }) },
      { weight: 2, arbitrary: fc.record({ kind: fc.constant('error' as const), after: fc.nat(7) }) },
      { weight: 2, arbitrary: fc.record({ kind: fc.constant('abort' as const), after: fc.nat(7) }) },
    ),
  })
  .map((spec) =>
    spec.ending.kind === 'error' || spec.ending.kind === 'abort'
      ? { ...spec, ending: { ...spec.ending, after: Math.min(spec.ending.after, spec.calls.length) } }
      : spec,
  )

const TOOL_OF: Record<CallKind, string> = {
  parallel: 'par',
  exclusive: 'ex',
  lazy: 'lazy',
  'bad-json': 'par',
}

function blockOf(call: CallSpec, index: number): ToolCallBlock {
  const id = `c${index}`
  if (call.kind === 'bad-json') return { type: 'tool-call', id, name: 'par', arguments: '{"fail": fal' }
  return toolCallBlock({ id, name: TOOL_OF[call.kind], args: { fail: call.fails } })
}

type Entry =
  | { readonly kind: 'event'; readonly clock: number; readonly event: AgentEvent }
  | { readonly kind: 'body-start' | 'body-end'; readonly clock: number; readonly callId: string }

interface Run {
  readonly spec: StreamSpec
  readonly session: Session
  readonly entries: readonly Entry[]
  readonly outcome: { readonly result: TurnResult } | { readonly error: unknown }
  readonly streamError: unknown
}

/** One turn whose first step streams `spec`, every part and every body end released by the fc scheduler. */
async function runStream(spec: StreamSpec, s: fc.Scheduler): Promise<Run> {
  const root: Context = createContext({ logger: createMemoryLogger() })
  installTools(root)
  const entries: Entry[] = []
  let clock = 0
  const body = async ({ fail }: { fail: boolean }, exec: { callId: string; signal: AbortSignal }) => {
    entries.push({ kind: 'body-start', clock: clock++, callId: exec.callId })
    try {
      await new Promise<void>((resolve, reject) => {
        exec.signal.addEventListener('abort', () => reject(new Error('stopped')), { once: true })
        void s.schedule(Promise.resolve(), `body ${exec.callId}`).then(resolve)
      })
    } finally {
      entries.push({ kind: 'body-end', clock: clock++, callId: exec.callId })
    }
    if (fail) throw new Error('the tool failed')
    return 'ok'
  }
  const parameters = z.object({ fail: z.boolean() })
  root.tools.register(
    defineTool({
      name: 'par',
      description: 'parallel',
      parameters,
      isConcurrencySafe: () => true,
      execute: body,
    }),
  )
  root.tools.register(defineTool({ name: 'ex', description: 'exclusive', parameters, execute: body }))
  root.tools.register(
    notEager(
      defineTool({
        name: 'lazy',
        description: 'not eager',
        parameters,
        isConcurrencySafe: () => true,
        execute: body,
      }),
    ),
  )

  const controller = new AbortController()
  const streamError = new Error('the connection dropped mid-stream')
  const part = async (label: string, push: () => void): Promise<void> => {
    await s.schedule(Promise.resolve(), label)
    push()
  }
  const script = async (c: StreamControl): Promise<void> => {
    const { ending } = spec
    const stopAfter = ending.kind === 'error' || ending.kind === 'abort' ? ending.after : Infinity
    for (const [index, call] of spec.calls.entries()) {
      if (index === stopAfter) break
      for (const text of call.textBefore) await part('text', () => c.text(text))
      await part(`call c${index}`, () => c.call(blockOf(call, index)))
    }
    if (ending.kind === 'error') return part('fail', () => c.fail(streamError))
    if (ending.kind === 'abort') {
      await part('abort', () => controller.abort(new Error('user abort')))
      return new Promise(() => undefined)
    }
    for (const text of spec.textAfter) await part('text', () => c.text(text))
    await part('finish', () => c.finish(ending.kind === 'length' ? { finishReason: 'length' } : {}))
  }
  const model = createStreamingModel([script, (c) => c.finish()])
  const session = createMemorySession()
  const agent = createAgent({
    ctx: root,
    name: 'prop',
    model,
    session,
    config: { maxParallelToolCalls: spec.cap },
  })
  let outcome: Run['outcome'] | undefined
  const running = agent
    .run('go', {
      signal: controller.signal,
      onEvent: (event) => void entries.push({ kind: 'event', clock: clock++, event }),
    })
    .then(
      (result) => void (outcome = { result }),
      (error: unknown) => void (outcome = { error }),
    )
  for (;;) {
    await quiesce()
    if (outcome !== undefined) break
    if (s.count() === 0) throw new Error('the turn is stuck: nothing is scheduled and it has not ended')
    await s.waitNext(1)
  }
  await running
  while (s.count() > 0) await s.waitNext(1)
  await quiesce()
  agent.dispose()
  return { spec, session, entries, outcome: outcome!, streamError }
}

function check(run: Run): string[] {
  const { spec, session, entries, outcome } = run
  const problems: string[] = []
  const log = session.events()
  const events = entries.flatMap((e) => (e.kind === 'event' ? [{ clock: e.clock, event: e.event }] : []))
  const first = (type: AgentEvent['type']) => events.find((e) => e.event.type === type)
  const streamEnd = first('model-call-end')?.clock ?? Infinity
  const { ending } = spec
  const yielded = ending.kind === 'error' || ending.kind === 'abort' ? ending.after : spec.calls.length
  const blocks = spec.calls.slice(0, yielded).map(blockOf)

  // the session replays and the history is valid for a provider, whatever happened
  const report = verifyToolPairs(log)
  if (!report.ok) problems.push(...report.problems.map((p) => `replay: ${p.kind} ${p.message}`))
  if (!pairedForProvider(historyFromSession(log)))
    problems.push('history: a tool call is not answered before the next message')

  // the step's recorded message holds exactly the complete calls, and what the model wrote
  const assistant = log.find((e) => e.type === 'assistant/message')
  const message = (assistant?.data as { message?: AssistantMessage } | undefined)?.message
  if (blocks.length === 0 && ending.kind !== 'finish' && ending.kind !== 'length') {
    if (assistant !== undefined) problems.push('a stream that ended before any call recorded a message')
  } else if (message === undefined) problems.push('no assistant message recorded')
  else {
    if (JSON.stringify(toolCallsOf(message)) !== JSON.stringify(blocks))
      problems.push(
        `recorded calls ${toolCallsOf(message)
          .map((b) => b.id)
          .join(',')} are not the yielded ones`,
      )
    const said = spec.calls.slice(0, yielded).flatMap((c) => c.textBefore)
    const text = [
      ...said,
      ...(ending.kind === 'finish' || ending.kind === 'length' ? spec.textAfter : []),
    ].join('')
    if (textOf(message.content) !== text)
      problems.push(`recorded text ${JSON.stringify(textOf(message.content))}`)
  }

  // one result per call, in model order (T25); nothing left out
  const codes = resultCodes(log)
  const resultOrder = log.flatMap((e) => (e.type === 'tool/result' ? [Object.keys(resultCodes([e]))[0]] : []))
  const stepResults = resultOrder.filter((id) => blocks.some((b) => b.id === id))
  if (stepResults.join() !== blocks.map((b) => b.id).join())
    problems.push(`results committed as ${stepResults.join()}`)
  const ends = events.flatMap((e) =>
    e.event.type === 'tool-call-end' && e.event.step === 1 ? [e.event.index] : [],
  )
  if (ends.join() !== blocks.map((_, i) => i).join()) problems.push(`tool-call-end order ${ends.join()}`)

  // starts: model order; only parallel-safe, eager calls before the stream's end (T40)
  const starts = events.flatMap((e) =>
    e.event.type === 'tool-call-start' && e.event.step === 1 ? [{ ...e, event: e.event }] : [],
  )
  if (starts.some((st, k) => st.event.index !== k))
    problems.push(`starts out of model order: ${starts.map((st) => st.event.index).join()}`)
  for (const st of starts) {
    const kind = spec.calls[st.event.index]!.kind
    const early = st.clock < streamEnd
    if (early !== st.event.duringStream)
      problems.push(
        `call ${st.event.index}: duringStream ${st.event.duringStream} but started ${early ? 'before' : 'after'} the end`,
      )
    if (early && kind !== 'parallel')
      problems.push(`call ${st.event.index} (${kind}) started before the stream ended`)
  }
  for (const body of entries) {
    if (body.kind !== 'body-start' || body.clock > streamEnd) continue
    const kind = spec.calls[Number(body.callId.slice(1))]!.kind
    if (kind !== 'parallel') problems.push(`the body of ${body.callId} (${kind}) ran before the stream ended`)
  }
  const stepEnd = events.find((e) => e.event.type === 'step-end')?.event
  if (blocks.length > 0 && stepEnd?.type === 'step-end') {
    const early = starts.filter((st) => st.event.duringStream).length
    if (stepEnd.eager?.startedDuringStream !== early)
      problems.push(`step-end says ${stepEnd.eager?.startedDuringStream} started early, events say ${early}`)
    if (stepEnd.eager !== undefined && (stepEnd.eager.savedMs < 0 || stepEnd.eager.overlapMs < 0))
      problems.push('negative figures')
  }

  // what each call ended with
  const started = new Set(starts.map((st) => st.event.index))
  const stopped = ending.kind !== 'finish'
  blocks.forEach((block, index) => {
    const call = spec.calls[index]!
    const code = codes[block.id]
    const real = call.kind === 'bad-json' ? 'INVALID_ARGUMENTS' : call.fails ? 'TOOL_FAILED' : 'OK'
    const allowed = !started.has(index) ? ['ABORTED_BEFORE_DISPATCH'] : stopped ? [real, 'ABORTED'] : [real]
    if (!stopped && !started.has(index)) problems.push(`call ${index} never started`)
    if (code === undefined || !allowed.includes(code))
      problems.push(`call ${index} ended ${code}, expected one of ${allowed.join('/')}`)
  })

  // how the turn ended
  const turnError = 'error' in outcome ? outcome.error : undefined
  const reason = 'result' in outcome ? outcome.result.reason : 'error'
  const expected =
    ending.kind === 'finish' || (ending.kind === 'length' && blocks.length === 0)
      ? 'completed'
      : ending.kind === 'abort'
        ? 'aborted'
        : 'error'
  if (reason !== expected)
    problems.push(`the turn ended ${reason}, expected ${expected} (${String(turnError)})`)
  if (ending.kind === 'error' && turnError !== run.streamError)
    problems.push('the turn did not fail with the stream error')
  if (
    ending.kind === 'length' &&
    blocks.length > 0 &&
    !(AgentLoopError.isInstance(turnError) && turnError.code === 'TRUNCATED_RESPONSE')
  )
    problems.push(`a cut-off step failed with ${String(turnError)}`)
  return problems
}

/** A new process resumes the session: the turn had ended, the next one runs on a valid history. */
async function resumes(session: Session): Promise<string[]> {
  const root = createContext({ logger: createMemoryLogger() })
  installTools(root)
  const model = createScriptedModel({ turns: [[textBlock('next')]] })
  const { agent, result } = await resumeAgent({ ctx: root, name: 'prop', model, session })
  const problems: string[] = []
  if (result === undefined) problems.push('resume found no turn')
  const next = await agent.run('again')
  if (next.reason !== 'completed') problems.push(`the next turn ended ${next.reason}`)
  if (!pairedForProvider(model.requests[0]!.messages))
    problems.push('the resumed history is not valid for a provider')
  if (!verifyToolPairs(session.events()).ok) problems.push('the log does not replay after resume')
  agent.dispose()
  return problems
}

describe('eager dispatch over random streams (fc.scheduler releases every part and every body)', () => {
  it(
    'T40: random split points, tool modes and failure points: model-order commits, no exclusive or eager: false call before the end, nothing unpaired, valid history, resumable',
    { timeout: 180_000 },
    async () => {
      await fc.assert(
        fc.asyncProperty(specArb, fc.scheduler(), async (spec, s) => {
          const run = await runStream(spec, s)
          expect(check(run)).toEqual([])
          expect(await resumes(run.session)).toEqual([])
        }),
        { numRuns: 1000 },
      )
    },
  )
})
