import type { AgentEvent } from '@deepseek-ai/dsh-agent-loop'
import type { CallConcurrency } from '@deepseek-ai/dsh-tools'
import type { BoardNotice, CallPhase, CallView, ModelView } from './call-view.ts'

export type {
  ApprovalWait,
  BoardNotice,
  CallPhase,
  CallResultView,
  CallView,
  ModelView,
} from './call-view.ts'

export interface CallBoardOptions {
  /** The pool's size: slots are numbered 1…poolSize (more only if a late body kept one). */
  readonly poolSize: number
  /** Mode and resource keys of a call not started yet (from `ctx.tools.concurrency`), if known. */
  readonly predict: (callId: string, name: string) => CallConcurrency | undefined
  readonly notify: (notice: BoardNotice) => void
}

type MutableCall = { -readonly [K in Exclude<keyof CallView, 'approvalWaits'>]: CallView[K] } & {
  approvalWaits: { from: number; to: number | undefined; nested: boolean }[]
  /** Resource keys and mode as predicted before the start (the scheduler reads them again then). */
  keys: readonly string[]
  expected: 'parallel' | 'exclusive' | undefined
}

/**
 * The live state of the calls of the current step, fed with the agent's events (and the approval
 * service's), telling a view what changed. It numbers pool slots itself (the scheduler has a count,
 * not numbered slots): a parallel call takes the lowest free number when it starts and frees it
 * when it settles, as the pool frees the slot. Every call it has seen stays in `calls` for the
 * summary.
 */
export function createCallBoard(options: CallBoardOptions) {
  const { poolSize, predict, notify } = options
  const all: MutableCall[] = []
  let step: MutableCall[] = []
  const byId = new Map<string, MutableCall>()
  const slots = new Set<number>()
  let running = 0
  /** Nested calls of the running programs inside their `tools/execute` (see `onNestedRun`). */
  let nestedRunning = 0
  let peak = { parallel: 0, nested: 0 }
  /** Counted in event order, never from times: the moment with most calls running, nested ones included. */
  const notePeak = (): void => {
    const now = running + nestedRunning
    if (now > peak.parallel || (now === peak.parallel && nestedRunning > peak.nested))
      peak = { parallel: now, nested: nestedRunning }
  }
  let model: ModelView | undefined

  const tell = (call: MutableCall, moved: boolean): void =>
    notify({
      kind: 'call',
      call: { ...call, approvalWaits: call.approvalWaits.map((wait) => ({ ...wait })) },
      moved,
    })

  /** Recomputes what each call that has not started waits for, and tells the view what changed. */
  function reviewWaiting(fresh?: MutableCall): void {
    for (const [position, call] of step.entries()) {
      if (call.started || call.phase === 'committed') continue
      const ahead = step.slice(0, position)
      const own = predict(call.callId, call.name)
      if (own !== undefined) {
        call.keys = own.keys
        call.expected = own.mode
      }
      const barrier = ahead.find(
        (other) => (other.mode ?? other.expected) === 'exclusive' && other.phase !== 'committed',
      )
      const pending = ahead.filter((other) => other.phase !== 'committed')
      const holder = ahead.find(
        (other) =>
          other.started && other.settledAt === undefined && other.keys.some((key) => call.keys.includes(key)),
      )
      const waiting = ahead.find((other) => !other.started)
      let phase: CallPhase = 'queued'
      let detail: string
      if (barrier !== undefined) {
        phase = 'barrier'
        detail = `behind #${barrier.number}, which runs alone`
      } else if (call.expected === 'exclusive' && pending.length > 0) {
        phase = 'barrier'
        detail = `runs alone: waits for ${pending.length} call${pending.length === 1 ? '' : 's'} before it to commit`
      } else if (holder !== undefined) {
        phase = 'key'
        detail = `${holder.keys.find((key) => call.keys.includes(key))}, held by #${holder.number}`
      } else if (waiting !== undefined) {
        detail = `behind #${waiting.number}`
      } else {
        detail = running >= poolSize ? 'waiting for a pool slot' : 'waiting to start'
      }
      if (call === fresh || phase !== call.phase || detail !== call.detail) {
        const moved = call === fresh || phase !== call.phase
        call.phase = phase
        call.detail = detail
        tell(call, moved)
      }
    }
  }

  function onEvent(event: AgentEvent): void {
    switch (event.type) {
      case 'turn-start':
        notify({ kind: 'turn-start', turn: event.turn, resumed: event.resumed })
        return
      case 'step-start':
        step = []
        return
      case 'model-call-start':
        model = {
          turn: event.turn,
          step: event.step,
          startedAt: event.at,
          durationMs: undefined,
          outcome: undefined,
          text: '',
          calls: 0,
        }
        notify({ kind: 'model-start', model })
        return
      case 'model-call-end': {
        const content = event.message?.content ?? []
        model = {
          turn: event.turn,
          step: event.step,
          startedAt: model?.startedAt ?? event.at - event.durationMs,
          durationMs: event.durationMs,
          outcome: event.outcome,
          text: content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('\n'),
          calls: content.filter((part) => part.type === 'tool-call').length,
        }
        notify({ kind: 'model-end', model })
        return
      }
      case 'tool-call-queued': {
        const call: MutableCall = {
          turn: event.turn,
          step: event.step,
          number: event.index + 1,
          callId: event.callId,
          name: event.name,
          label: event.label,
          phase: 'queued',
          detail: '',
          mode: undefined,
          slot: undefined,
          approval: undefined,
          approvalWaits: [],
          queuedAt: event.at,
          startedAt: undefined,
          settledAt: undefined,
          committedAt: undefined,
          result: undefined,
          timings: undefined,
          started: false,
          keys: [],
          expected: undefined,
        }
        all.push(call)
        step.push(call)
        byId.set(call.callId, call)
        reviewWaiting(call)
        return
      }
      case 'tool-call-start': {
        const call = byId.get(event.callId)
        if (call === undefined) return
        call.started = true
        call.startedAt = event.at
        call.mode = event.mode
        running += 1
        notePeak()
        if (event.mode === 'parallel') {
          let slot = 1
          while (slots.has(slot)) slot += 1
          slots.add(slot)
          call.slot = slot
          call.detail = `slot ${slot}`
        } else {
          call.detail = 'alone (a barrier)'
        }
        call.phase = 'running'
        tell(call, true)
        reviewWaiting()
        return
      }
      case 'tool-call-settled': {
        const call = byId.get(event.callId)
        if (call === undefined) return
        settle(call, event.at)
        call.phase = 'settled'
        call.detail = 'waiting to commit in model order'
        tell(call, false)
        reviewWaiting()
        return
      }
      case 'tool-call-progress': {
        // the body's own words while it runs: "3/10 copying"
        const call = byId.get(event.callId)
        if (call === undefined || call.phase === 'committed') return
        const count = event.total === undefined ? `${event.progress}` : `${event.progress}/${event.total}`
        call.detail = event.message === undefined ? count : `${count} ${event.message}`
        tell(call, false)
        return
      }
      case 'tool-call-end': {
        const call = byId.get(event.callId)
        if (call === undefined) return
        if (call.started && call.settledAt === undefined) settle(call, event.at)
        const { result } = event
        call.committedAt = event.at
        call.timings = event.timings
        call.started = event.started
        call.result = result.isError
          ? { ok: false, code: result.error.info?.code, text: result.error.message }
          : { ok: true, code: undefined, text: event.resultLabel }
        call.phase = 'committed'
        call.detail = ''
        tell(call, true)
        reviewWaiting()
        return
      }
      case 'step-end':
        notify({ kind: 'step-end', turn: event.turn, step: event.step })
        return
      case 'turn-end':
        notify({
          kind: 'turn-end',
          turn: event.turn,
          reason: event.result.reason,
          steps: event.result.steps,
          durationMs: event.durationMs,
        })
        return
      // The demo answers approvals in process (never a durable pause), and a retried model call
      // shows as the same spinner running longer. It prepares no step and draws a call once it is
      // queued, not while it is written.
      case 'model-call-retry':
      case 'approval-requested':
      case 'approval-answered':
      case 'step-prepared':
      case 'tool-input-start':
      case 'tool-input-delta':
      case 'tool-input-end':
        return
      default: {
        const never: never = event
        return never
      }
    }
  }

  function settle(call: MutableCall, at: number): void {
    call.settledAt = at
    running = Math.max(0, running - 1)
    if (call.slot !== undefined) slots.delete(call.slot)
  }

  /**
   * The approval service is waiting for a person (`true`), or has its answer (`false`), at `at`
   * (`performance.now()`): the time between is the call's wait for approval, part of its run time.
   * A call a `run_code` program made (`<parent>:code:<n>`) is shown on its program's line.
   */
  function onApproval(callId: string, waiting: boolean, outcome?: string, at = performance.now()): void {
    const nested = callId.indexOf(':code:')
    const call = byId.get(callId) ?? (nested > 0 ? byId.get(callId.slice(0, nested)) : undefined)
    if (call === undefined) return
    const said = call.callId !== callId && outcome !== undefined ? `a nested call ${outcome}` : outcome
    if (said !== undefined) call.approval = said
    const open = call.approvalWaits.find((wait) => wait.to === undefined)
    if (waiting && open === undefined)
      call.approvalWaits.push({ from: at, to: undefined, nested: call.callId !== callId })
    if (!waiting && open !== undefined) open.to = at
    if (waiting) {
      call.phase = 'approval'
      call.detail = 'waiting for your answer'
    } else if (call.phase === 'approval' || said !== undefined) {
      call.phase = 'running'
      call.detail = `${call.slot === undefined ? 'alone (a barrier)' : `slot ${call.slot}`}, ${said ?? 'answered'}`
    }
    tell(call, true)
  }

  /**
   * A program's nested call entered (`true`) or left (`false`) its run (the demo's `tools/execute`
   * wrapper). The loop emits no events for nested calls; this is how the board counts them among
   * the calls running at once.
   */
  function onNestedRun(running: boolean): void {
    nestedRunning = running ? nestedRunning + 1 : Math.max(0, nestedRunning - 1)
    if (running) notePeak()
  }

  return {
    onEvent,
    onApproval,
    onNestedRun,
    /** The calls of the current step, in model order. */
    stepCalls: (): readonly CallView[] => step,
    /** Every call seen, in the order they were queued. */
    calls: (): readonly CallView[] => all,
    model: (): ModelView | undefined => model,
    /**
     * Most calls running at one moment (the model's from start to settled, a program's nested ones
     * inside its wrapper), and how many of them were nested.
     */
    peakParallel: (): { readonly parallel: number; readonly nested: number } => peak,
  }
}

export type CallBoard = ReturnType<typeof createCallBoard>
