import type fc from 'fast-check'
import { z } from 'zod'
import { createContext, createMemoryLogger, type Context, type Disposer } from '@deepseek-ai/dsh-context'
import type { ToolCallBlock } from '@deepseek-ai/dsh-llm'
import {
  SessionError,
  createAsyncSession,
  createMemorySession,
  type AnySession,
  type Session,
  type SessionEvent,
} from '@deepseek-ai/dsh-session'
import {
  defineTool,
  installTools,
  type AnyToolDefinition,
  type ToolExecutionResult,
} from '@deepseek-ai/dsh-tools'
import {
  executeToolCalls,
  resolveAgentLoopConfig,
  type ToolCallProgressEvent,
} from '@deepseek-ai/dsh-agent-loop'

export type CallMode = 'parallel' | 'exclusive' | 'keyed'
export type CallOutcome = 'ok' | 'reject' | 'throw' | 'context' | 'conclude' | 'bad-output'
export type CallKind = 'work' | 'swappable' | 'missing' | 'bad-json'

/** One generated call: which tool, how its concurrency is declared, how its body ends, what it changes. */
export interface CallSpec {
  readonly kind: CallKind
  readonly mode: CallMode
  readonly keys: readonly string[]
  readonly outcome: CallOutcome
  /** Later calls this body turns into barriers when it starts (T24). */
  readonly flips: readonly number[]
  /** This body swaps the `swappable` tool for its other variant (re-registration, T24). */
  readonly swap: boolean
  /** When the body makes its changes: as it starts, or just before it returns (while later calls wait). */
  readonly changeAt: 'start' | 'end'
  /** What the step's `tools/pre-execute` listener does with this call (only when the step has policies). */
  readonly pre: 'pass' | 'slow' | 'deny'
  /** Whether the step's `tools/post-execute` listener waits for the fc scheduler on this call. */
  readonly post: 'pass' | 'slow'
}

/** The session refuses to record the `type` event of call `index`: the first time, or every time. */
export interface SessionFault {
  readonly type: 'tool/call' | 'tool/result'
  readonly index: number
  readonly times: 'once' | 'always'
}

export interface StepSpec {
  readonly calls: readonly CallSpec[]
  readonly cap: number
  /** Schedule an abort among the body releases, at a moment the fc scheduler picks. */
  readonly abort: boolean
  /** Register `tools/pre-execute` and `tools/post-execute` listeners that journal (and may delay or deny). */
  readonly policies: boolean
  readonly fault?: SessionFault
  /**
   * Record into an asynchronous session (`createAsyncSession`) whose writes complete a few
   * microtasks later, so the batch must await every append; a fault then rejects the write holding
   * that event, after which the session refuses every append (so only `always` faults make sense).
   */
  readonly async?: boolean
}

export type TraceEntry =
  | {
      readonly kind: 'progress'
      readonly clock: number
      readonly event: ToolCallProgressEvent
      readonly oracleMode: 'parallel' | 'exclusive'
    }
  | { readonly kind: 'body-start'; readonly clock: number; readonly index: number }
  | { readonly kind: 'body-end'; readonly clock: number; readonly index: number; readonly aborted: boolean }
  | { readonly kind: 'context'; readonly clock: number; readonly text: string; readonly callId: string }
  | { readonly kind: 'abort'; readonly clock: number }
  | {
      readonly kind: 'pre-enter' | 'pre-exit' | 'post-enter' | 'post-exit'
      readonly clock: number
      readonly index: number
    }

export interface StepTrace {
  readonly spec: StepSpec
  readonly entries: readonly TraceEntry[]
  /** Empty when the batch rejected. */
  readonly results: readonly ToolExecutionResult[]
  readonly concludesTurn: boolean
  /** What `executeToolCalls` rejected with, if it did. */
  readonly failure: { readonly error: unknown } | undefined
  readonly session: AnySession
  /** Problems seen at quiescent points (rolling pool, commit liveness). */
  readonly violations: readonly string[]
  /** Keys each call declares (what the oracle says; empty for non-keyed calls). */
  readonly keysOf: (index: number) => readonly string[]
}

export const TURN = 3
export const STEP = 2

const params = z.object({
  i: z.number().int(),
  mode: z.enum(['parallel', 'exclusive', 'keyed']),
  keys: z.array(z.string()),
  outcome: z.enum(['ok', 'reject', 'throw', 'context', 'conclude', 'bad-output']),
  flips: z.array(z.number().int()),
  swap: z.boolean(),
  changeAt: z.enum(['start', 'end']),
})
type Args = z.output<typeof params>

export function callId(index: number): string {
  return `call-${index}`
}

export function blockFor(spec: CallSpec, index: number): ToolCallBlock {
  const args = JSON.stringify({
    i: index,
    mode: spec.mode,
    keys: spec.keys,
    outcome: spec.outcome,
    flips: spec.flips,
    swap: spec.swap,
    changeAt: spec.changeAt,
  })
  switch (spec.kind) {
    case 'work':
    case 'swappable':
      return { type: 'tool-call', id: callId(index), name: spec.kind, arguments: args }
    case 'missing':
      return { type: 'tool-call', id: callId(index), name: 'missing', arguments: args }
    case 'bad-json':
      return { type: 'tool-call', id: callId(index), name: 'work', arguments: args.slice(0, -1) }
    default: {
      const never: never = spec.kind
      return never
    }
  }
}

/** Settles once every queued microtask has run: the system under test has nothing left to do on its own. */
export const quiesce = (): Promise<void> => new Promise((resolve) => setImmediate(resolve))

/**
 * `quiesce`, then as many more turns as an asynchronous session still has appends in flight: it
 * starts a write on the turn after the appends it groups, so each write a step waits for takes a turn.
 */
async function quiesceWith(session: AnySession): Promise<void> {
  await quiesce()
  while ('pending' in session && session.pending > 0) await quiesce()
}

/**
 * Runs one generated step through `executeToolCalls` with every tool body's end controlled by the fc
 * scheduler, and records a trace: progress events (with the mode an independent oracle expects at
 * that moment), body starts and ends, accepted contexts, the abort. Between two releases the system
 * is left to quiesce and is checked for work it should have started or committed.
 */
export async function runGeneratedStep(spec: StepSpec, s: fc.Scheduler): Promise<StepTrace> {
  const ctx: Context = createContext({ logger: createMemoryLogger() })
  installTools(ctx)
  // Once the session refuses an append the batch has failed: it starts nothing more, while calls
  // already running may still finish within the abort grace (T38), so the rolling-pool check stops.
  let faulted = false
  const onFault = (): void => void (faulted = true)
  const session =
    spec.async === true
      ? asyncSession(spec.fault, onFault)
      : spec.fault === undefined
        ? createMemorySession()
        : faultySession(spec.fault, onFault)
  const agentCtx = ctx.createScope({ name: 'agent' })
  agentCtx.provide('agentLoop', {
    config: resolveAgentLoopConfig({ maxParallelToolCalls: spec.cap }),
    session,
  })

  const entries: TraceEntry[] = []
  let clock = 0
  const flipped = new Set<number>()
  let variant: 'parallel' | 'exclusive' = 'parallel'
  const n = spec.calls.length

  const declaredParallel = (args: Args): boolean => args.mode !== 'exclusive' && !flipped.has(args.i)
  const keysOf = (index: number): readonly string[] => {
    const call = spec.calls[index]!
    return call.mode === 'keyed' && (call.kind === 'work' || call.kind === 'swappable') ? call.keys : []
  }
  const oracleMode = (index: number): 'parallel' | 'exclusive' => {
    const call = spec.calls[index]!
    if (call.kind === 'missing' || call.kind === 'bad-json') return 'exclusive'
    if (call.kind === 'swappable' && variant === 'exclusive') return 'exclusive'
    return call.mode !== 'exclusive' && !flipped.has(index) ? 'parallel' : 'exclusive'
  }

  const body = async (
    args: Args,
    exec: { signal: AbortSignal; deferContext(text: string): void; concludeTurn(): void },
  ) => {
    const index = args.i
    entries.push({ kind: 'body-start', clock: clock++, index })
    let ended = false
    const end = (aborted: boolean): void => {
      if (ended) return
      ended = true
      entries.push({ kind: 'body-end', clock: clock++, index, aborted })
    }
    exec.signal.addEventListener('abort', () => end(true), { once: true })
    const change = (): void => {
      for (const target of args.flips) flipped.add(target)
      if (args.swap) swap()
    }
    if (args.changeAt === 'start') change()
    if (args.outcome === 'context') exec.deferContext(`context of ${index}`)
    if (args.outcome === 'conclude') exec.concludeTurn()
    if (args.outcome === 'throw') {
      end(false)
      throw new Error(`body ${index} threw`)
    }
    await s.schedule(Promise.resolve(), `body ${index}`)
    if (args.changeAt === 'end' && !exec.signal.aborted) change()
    end(false)
    if (args.outcome === 'reject') throw new Error(`body ${index} failed`)
    if (args.outcome === 'bad-output') return 10n as unknown as string
    return `ok ${index}`
  }

  const work = defineTool({
    name: 'work',
    description: 'A test tool whose concurrency depends on its arguments.',
    parameters: params,
    isConcurrencySafe: declaredParallel,
    concurrencyKey: (args) => (args.mode === 'keyed' ? args.keys : undefined),
    execute: body,
  })
  const swappable: Record<'parallel' | 'exclusive', AnyToolDefinition> = {
    parallel: defineTool({
      name: 'swappable',
      description: 'Variant that is parallel-safe like `work`.',
      parameters: params,
      isConcurrencySafe: declaredParallel,
      concurrencyKey: (args) => (args.mode === 'keyed' ? args.keys : undefined),
      execute: body,
    }),
    exclusive: defineTool({
      name: 'swappable',
      description: 'Variant that declares nothing: every call is a barrier.',
      parameters: params,
      execute: body,
    }),
  }
  ctx.tools.register(work)
  const inPolicy = new Set<number>()
  const inPost = new Set<number>()
  if (spec.policies) {
    ctx.on('tools/pre-execute', async (info, next) => {
      const index = Number(info.callId.slice('call-'.length))
      const call = spec.calls[index]!
      entries.push({ kind: 'pre-enter', clock: clock++, index })
      inPolicy.add(index)
      try {
        if (call.pre === 'slow') await s.schedule(Promise.resolve(), `pre ${index}`)
        return call.pre === 'deny' ? { type: 'deny', reason: 'not today' } : await next()
      } finally {
        inPolicy.delete(index)
        entries.push({ kind: 'pre-exit', clock: clock++, index })
      }
    })
    ctx.on('tools/post-execute', async (info, next) => {
      const index = Number(info.callId.slice('call-'.length))
      entries.push({ kind: 'post-enter', clock: clock++, index })
      inPost.add(index)
      try {
        if (spec.calls[index]!.post === 'slow') await s.schedule(Promise.resolve(), `post ${index}`)
        return await next()
      } finally {
        inPost.delete(index)
        entries.push({ kind: 'post-exit', clock: clock++, index })
      }
    })
  }
  let unregister: Disposer = ctx.tools.register(swappable[variant])
  const swap = (): void => {
    unregister()
    variant = variant === 'parallel' ? 'exclusive' : 'parallel'
    unregister = ctx.tools.register(swappable[variant])
  }

  const controller = new AbortController()
  let aborted = false
  if (spec.abort) {
    void s.schedule(Promise.resolve(), 'abort').then(() => {
      aborted = true
      entries.push({ kind: 'abort', clock: clock++ })
      controller.abort(new Error('test abort'))
    })
  }

  const started = new Map<number, 'parallel' | 'exclusive'>()
  const settled = new Set<number>()
  let committed = 0
  const onEvent = (event: ToolCallProgressEvent): void => {
    entries.push({ kind: 'progress', clock: clock++, event, oracleMode: oracleMode(event.index) })
    if (event.type === 'tool-call-start') started.set(event.index, event.mode)
    if (event.type === 'tool-call-settled') settled.add(event.index)
    if (event.type === 'tool-call-end') committed = Math.max(committed, event.index + 1)
  }

  const violations: string[] = []
  const checkQuiescent = (): void => {
    if (aborted || faulted) return
    // a slow policy stage holds the line legitimately: policy runs in model order (T25)
    if (inPolicy.size > 0) return
    if (committed < n && settled.has(committed) && !inPost.has(committed))
      violations.push(`call ${committed} settled but was not committed at a quiescent point`)
    const next = started.size
    if (next >= n) return
    const inFlight = [...started]
      .filter(([i, mode]) => mode === 'parallel' && !settled.has(i))
      .map(([i]) => i)
    if (oracleMode(next) === 'exclusive') {
      if (committed === next)
        violations.push(`call ${next} (exclusive) was not started although every earlier call had committed`)
      return
    }
    const barrierOpen = [...started].some(([i, mode]) => mode === 'exclusive' && i >= committed)
    const keyBusy = inFlight.some((i) => keysOf(i).some((key) => keysOf(next).includes(key)))
    if (!barrierOpen && inFlight.length < spec.cap && !keyBusy) {
      violations.push(
        `call ${next} (parallel) was not started although ${inFlight.length}/${spec.cap} slots were busy and no barrier or key blocked it`,
      )
    }
  }

  const blocks = spec.calls.map(blockFor)
  let outcome: { results: ToolExecutionResult[]; concludesTurn: boolean } | undefined
  let failure: { error: unknown } | undefined
  const running = executeToolCalls({
    ctx: agentCtx,
    turn: TURN,
    step: STEP,
    toolCalls: blocks,
    signal: controller.signal,
    acceptContext: (text, source) =>
      void entries.push({ kind: 'context', clock: clock++, text, callId: source.callId }),
    onEvent,
  }).then(
    (value) => void (outcome = value),
    (error: unknown) => void (failure = { error }),
  )

  for (;;) {
    await quiesceWith(session)
    if (outcome !== undefined || failure !== undefined) break
    checkQuiescent()
    if (s.count() === 0)
      throw new Error(
        `the batch is stuck: nothing is scheduled and it has not finished (${violations.join('; ')})`,
      )
    await s.waitNext(1)
  }
  await running
  // Bodies an abort cut off are still pending in the scheduler; let them end so nothing leaks.
  while (s.count() > 0) await s.waitNext(1)
  await quiesceWith(session)
  return {
    spec,
    entries,
    results: outcome?.results ?? [],
    concludesTurn: outcome?.concludesTurn ?? false,
    failure,
    session,
    violations,
    keysOf,
  }
}

function faultHits(fault: SessionFault, type: string, data: unknown): boolean {
  const d = data as { callId?: string; message?: { content: { callId: string }[] } }
  const id =
    type === 'tool/call' ? d.callId : type === 'tool/result' ? d.message?.content[0]?.callId : undefined
  return type === fault.type && id === callId(fault.index)
}

/** An asynchronous session over memory: each write completes a few microtasks later, or fails on the faulty event. */
function asyncSession(fault: SessionFault | undefined, onFault: () => void): AnySession {
  const stored: SessionEvent[] = []
  return createAsyncSession({
    write: async (events) => {
      await Promise.resolve()
      await Promise.resolve()
      const hit = fault === undefined ? undefined : events.find((e) => faultHits(fault, e.type, e.data))
      if (hit !== undefined) {
        onFault()
        throw new SessionError({
          code: 'IO',
          message: `disk full while recording ${hit.type} of ${callId(fault!.index)}`,
        })
      }
      stored.push(...events)
    },
  })
}

/** A memory session whose `append` throws for one call's `tool/call` or `tool/result`. */
function faultySession(fault: SessionFault, onFault: () => void): Session {
  const inner = createMemorySession()
  let failed = 0
  const target = callId(fault.index)
  return {
    ...inner,
    get lastSeq() {
      return inner.lastSeq
    },
    get closed() {
      return inner.closed
    },
    events: () => inner.events(),
    read: (options) => inner.read(options),
    close: () => inner.close(),
    append(type, data, options) {
      const d = data as { callId?: string; message?: { content: { callId: string }[] } }
      const id =
        type === 'tool/call' ? d.callId : type === 'tool/result' ? d.message?.content[0]?.callId : undefined
      if (type === fault.type && id === target && (fault.times === 'always' || failed === 0)) {
        failed++
        onFault()
        throw new Error(`disk full while recording ${type} of ${target}`)
      }
      return inner.append(type, data, options)
    },
  }
}
