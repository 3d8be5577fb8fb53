import type { ScopeInfo } from '@deepseek-ai/dsh-context'
import type { TokenUsage } from '@deepseek-ai/dsh-llm'
import type {
  Agent,
  AgentEvent,
  ApprovalAnsweredEvent,
  ApprovalRequestedEvent,
  ModelCallEndEvent,
  ModelCallRetryEvent,
  ModelCallStartEvent,
  StepEndEvent,
  ToolCallStartEvent,
  TurnEndEvent,
} from '@deepseek-ai/dsh-agent-loop'
import {
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context as OtelContext,
  type Span,
  type Tracer,
} from '@opentelemetry/api'
import { GenAiOperations, OtelAttributes as A } from './attributes.ts'
import { clipText } from './capture.ts'
import { fromPerformance, now } from './clock.ts'
import type { ResolvedOtelConfig } from './read-config.ts'
import { errorMessage, errorType, type Reporter } from './report.ts'

/**
 * What the tracer reads from an agent: its name, its scope, which model it calls, and whether its
 * steps stream (`eagerToolExecution`, default `true` as in `createAgent`).
 */
export type TracedAgent = Pick<Agent, 'name' | 'ctx' | 'model'> & Partial<Pick<Agent, 'eagerToolExecution'>>

interface Slot {
  readonly span: Span
  /** The span as a parent (made once per span, not per call). */
  readonly context: OtelContext
}

interface StepSlot extends Slot {
  chat: Span | undefined
  /** Per call id, the `duringStream` of its `tool-call-start` event (made at the step's first one). */
  duringStream: Map<string, boolean> | undefined
}

interface TurnSlot extends Slot {
  readonly steps: Map<number, StepSlot>
  /** The highest step opened so far: a step below it that is gone has ended. */
  lastStep: number
}

/** The spans of one traced agent: its turns, their steps, and each step's model call. */
export interface AgentTrace {
  readonly scope: ScopeInfo
  /**
   * The parent for a tool call of (`turn`, `step`): that step's span. A step or turn the event
   * stream has not announced yet (a consumer that reads events later than they happen) is opened
   * here, now; a step that already ended leaves its turn as the parent, a turn that ended none.
   */
  stepContext(turn: number, step: number): OtelContext | undefined
  /**
   * Whether the agent's call `callId` of (`turn`, `step`) started while the model still streamed
   * (its `tool-call-start` event), or undefined when that event has not arrived (or the step ended).
   */
  startedDuringStream(turn: number, step: number, callId: string): boolean | undefined
  onEvent(event: AgentEvent): void
  /** Ends every span still open, marked `dsh.unfinished`. */
  close(): void
}

function usageAttributes(attributes: Attributes, usage: TokenUsage | undefined): void {
  if (usage === undefined) return
  attributes[A.GEN_AI_USAGE_INPUT_TOKENS] = usage.inputTokens
  attributes[A.GEN_AI_USAGE_OUTPUT_TOKENS] = usage.outputTokens
  if (usage.cacheHitInputTokens !== undefined)
    attributes[A.GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS] = usage.cacheHitInputTokens
  if (usage.reasoningTokens !== undefined)
    attributes[A.GEN_AI_USAGE_REASONING_OUTPUT_TOKENS] = usage.reasoningTokens
}

function endUnfinished(span: Span, at: number): void {
  span.setAttribute(A.DSH_UNFINISHED, true)
  span.end(at)
}

/**
 * Turn, step and model-call spans of one agent, built from its `AgentEvent` stream: a turn is an
 * `invoke_agent {name}` span, each step a `step` span inside it, each model call a `chat {model}`
 * span inside its step. Start and end times are the events' own `at`, so a consumer that reads
 * the events late still gets the right times. Tool call spans are not made here: the pipeline
 * makes them, and asks `stepContext` for their parent.
 */
export function createAgentTrace(options: {
  readonly tracer: Tracer
  readonly agent: TracedAgent
  readonly parent: OtelContext
  readonly config: ResolvedOtelConfig
  readonly report: Reporter
}): AgentTrace {
  const { tracer, agent, parent, config, report } = options
  const { provider, modelId } = agent.model
  // The loop streams a step exactly when eager dispatch is on and the model can stream.
  const streams = agent.eagerToolExecution !== false && typeof agent.model.stream === 'function'
  const turns = new Map<number, TurnSlot>()
  let lastTurn = Number.NEGATIVE_INFINITY
  let closed = false

  const openTurn = (turn: number, at: number, resumed: boolean | undefined): TurnSlot | undefined => {
    const existing = turns.get(turn)
    if (existing !== undefined || turn <= lastTurn || closed) return existing
    lastTurn = turn
    const attributes: Attributes = {
      [A.GEN_AI_OPERATION_NAME]: GenAiOperations.INVOKE_AGENT,
      [A.GEN_AI_AGENT_NAME]: agent.name,
      [A.GEN_AI_PROVIDER_NAME]: provider,
      [A.GEN_AI_REQUEST_MODEL]: modelId,
      [A.DSH_TURN]: turn,
    }
    if (resumed !== undefined) attributes[A.DSH_TURN_RESUMED] = resumed
    const span = tracer.startSpan(
      `${GenAiOperations.INVOKE_AGENT} ${agent.name}`,
      { kind: SpanKind.INTERNAL, startTime: at, attributes },
      parent,
    )
    const slot: TurnSlot = { span, context: trace.setSpan(parent, span), steps: new Map(), lastStep: 0 }
    turns.set(turn, slot)
    return slot
  }

  const openStep = (turnSlot: TurnSlot, turn: number, step: number, at: number): StepSlot | undefined => {
    const existing = turnSlot.steps.get(step)
    if (existing !== undefined || step <= turnSlot.lastStep) return existing
    turnSlot.lastStep = step
    const span = tracer.startSpan(
      'step',
      { kind: SpanKind.INTERNAL, startTime: at, attributes: { [A.DSH_TURN]: turn, [A.DSH_STEP]: step } },
      turnSlot.context,
    )
    const slot: StepSlot = {
      span,
      context: trace.setSpan(turnSlot.context, span),
      chat: undefined,
      duringStream: undefined,
    }
    turnSlot.steps.set(step, slot)
    return slot
  }

  const stepOf = (turn: number, step: number, at: number): StepSlot | undefined => {
    const turnSlot = openTurn(turn, at, undefined)
    return turnSlot === undefined ? undefined : openStep(turnSlot, turn, step, at)
  }

  const startChat = (event: ModelCallStartEvent): void => {
    const slot = stepOf(event.turn, event.step, fromPerformance(event.at))
    if (slot === undefined) return
    if (slot.chat !== undefined) endUnfinished(slot.chat, fromPerformance(event.at))
    slot.chat = tracer.startSpan(
      `${GenAiOperations.CHAT} ${modelId}`,
      {
        kind: SpanKind.CLIENT,
        startTime: fromPerformance(event.at),
        attributes: {
          [A.GEN_AI_OPERATION_NAME]: GenAiOperations.CHAT,
          [A.GEN_AI_PROVIDER_NAME]: provider,
          [A.GEN_AI_REQUEST_MODEL]: modelId,
          [A.GEN_AI_REQUEST_STREAM]: streams,
          [A.DSH_TURN]: event.turn,
          [A.DSH_STEP]: event.step,
          [A.DSH_MODEL_ATTEMPT]: event.attempt,
        },
      },
      slot.context,
    )
  }

  /** Retries and durable approvals: events on the step's span (each model attempt has its own chat span). */
  const stepEvent = (event: ModelCallRetryEvent | ApprovalRequestedEvent | ApprovalAnsweredEvent): void => {
    const slot = turns.get(event.turn)?.steps.get(event.step)
    if (slot === undefined) return
    const at = fromPerformance(event.at)
    switch (event.type) {
      case 'model-call-retry':
        slot.span.addEvent(
          'dsh.model.retry',
          { [A.DSH_MODEL_ATTEMPT]: event.attempt, [A.DSH_MODEL_RETRY_IN_MS]: event.delayMs },
          at,
        )
        return
      case 'approval-requested':
        slot.span.addEvent(
          'dsh.approval.requested',
          { [A.DSH_APPROVAL_CALL_ID]: event.approval.callId, [A.DSH_APPROVAL_TOOL]: event.approval.name },
          at,
        )
        return
      case 'approval-answered':
        slot.span.addEvent(
          'dsh.approval.answered',
          { [A.DSH_APPROVAL_CALL_ID]: event.callId, [A.DSH_APPROVAL_ANSWER]: event.answer },
          at,
        )
        return
      default: {
        const never: never = event
        return never
      }
    }
  }

  const endChat = (event: ModelCallEndEvent): void => {
    const slot = turns.get(event.turn)?.steps.get(event.step)
    const span = slot?.chat
    if (slot === undefined || span === undefined) return
    slot.chat = undefined
    const attributes: Attributes = {}
    if (event.finishReason !== undefined) attributes[A.GEN_AI_RESPONSE_FINISH_REASONS] = [event.finishReason]
    usageAttributes(attributes, event.usage)
    if (event.outcome !== 'ok') attributes[A.DSH_MODEL_OUTCOME] = event.outcome
    if (event.outcome === 'error') {
      attributes[A.ERROR_TYPE] = errorType(event.error)
      span.setStatus({
        code: SpanStatusCode.ERROR,
        message: config.captureResults
          ? clipText(errorMessage(event.error), config.maxCaptureBytes)
          : String(attributes[A.ERROR_TYPE]),
      })
    }
    span.setAttributes(attributes)
    span.end(fromPerformance(event.at))
  }

  const endStep = (event: StepEndEvent): void => {
    const turnSlot = turns.get(event.turn)
    const slot = turnSlot?.steps.get(event.step)
    if (turnSlot === undefined || slot === undefined) return
    turnSlot.steps.delete(event.step)
    if (slot.chat !== undefined) endUnfinished(slot.chat, fromPerformance(event.at))
    const attributes: Attributes = {
      [A.DSH_STEP_TOOL_CALLS]: event.toolCalls,
      [A.DSH_STEP_CONCLUDES_TURN]: event.concludesTurn,
    }
    const { eager } = event
    if (eager !== undefined) {
      attributes[A.DSH_STEP_EAGER_QUEUED_DURING_STREAM] = eager.queuedDuringStream
      attributes[A.DSH_STEP_EAGER_STARTED_DURING_STREAM] = eager.startedDuringStream
      attributes[A.DSH_STEP_EAGER_OVERLAP_MS] = eager.overlapMs
      attributes[A.DSH_STEP_EAGER_SAVED_MS] = eager.savedMs
    }
    slot.span.setAttributes(attributes)
    slot.span.end(fromPerformance(event.at))
  }

  const endTurn = (event: TurnEndEvent): void => {
    const slot = turns.get(event.turn)
    if (slot === undefined) return
    turns.delete(event.turn)
    for (const step of slot.steps.values()) {
      if (step.chat !== undefined) endUnfinished(step.chat, fromPerformance(event.at))
      endUnfinished(step.span, fromPerformance(event.at))
    }
    const { result } = event
    const attributes: Attributes = { [A.DSH_TURN_REASON]: result.reason, [A.DSH_TURN_STEPS]: result.steps }
    usageAttributes(attributes, result.usage)
    if (result.reason === 'error') {
      attributes[A.ERROR_TYPE] = errorType(event.error)
      slot.span.setStatus({
        code: SpanStatusCode.ERROR,
        message: config.captureResults
          ? clipText(errorMessage(event.error), config.maxCaptureBytes)
          : String(attributes[A.ERROR_TYPE]),
      })
    }
    slot.span.setAttributes(attributes)
    slot.span.end(fromPerformance(event.at))
  }

  // Emitted right before the call's policy stage, so a reader in step has it before the call's result.
  const startTool = (event: ToolCallStartEvent): void => {
    const slot = turns.get(event.turn)?.steps.get(event.step)
    if (slot === undefined || typeof event.duringStream !== 'boolean') return
    ;(slot.duringStream ??= new Map()).set(event.callId, event.duringStream)
  }

  const handle = (event: AgentEvent): void => {
    switch (event.type) {
      case 'turn-start':
        openTurn(event.turn, fromPerformance(event.at), event.resumed)
        return
      case 'step-start':
        stepOf(event.turn, event.step, fromPerformance(event.at))
        return
      case 'model-call-start':
        return startChat(event)
      case 'model-call-end':
        return endChat(event)
      case 'step-end':
        return endStep(event)
      case 'turn-end':
        return endTurn(event)
      case 'tool-call-start':
        return startTool(event)
      case 'model-call-retry':
      case 'approval-requested':
      case 'approval-answered':
        return stepEvent(event)
      // Tool calls are traced by the pipeline itself, with every stage; these add nothing to it.
      // Arguments being written (a delta per token or so) would flood the trace; the call's own span
      // has its final arguments. What prepareStep chose is on the session (step/prepare).
      case 'tool-call-queued':
      case 'tool-call-progress':
      case 'tool-call-settled':
      case 'tool-call-end':
      case 'tool-input-start':
      case 'tool-input-delta':
      case 'tool-input-end':
      case 'step-prepared':
        return
      default: {
        const never: never = event
        return never
      }
    }
  }

  return {
    scope: agent.ctx.scope,
    stepContext(turn, step) {
      try {
        const turnSlot = openTurn(turn, now(), undefined)
        if (turnSlot === undefined) return undefined
        return openStep(turnSlot, turn, step, now())?.context ?? turnSlot.context
      } catch (error) {
        report('opening a turn or step span for a tool call', error)
        return undefined
      }
    },
    startedDuringStream(turn, step, callId) {
      return turns.get(turn)?.steps.get(step)?.duringStream?.get(callId)
    },
    onEvent(event) {
      if (closed) return
      try {
        handle(event)
      } catch (error) {
        report(`tracing the agent event "${describeType(event)}"`, error)
      }
    },
    close() {
      if (closed) return
      closed = true
      const at = now()
      for (const slot of turns.values()) {
        for (const step of slot.steps.values()) {
          if (step.chat !== undefined) endUnfinished(step.chat, at)
          endUnfinished(step.span, at)
        }
        endUnfinished(slot.span, at)
      }
      turns.clear()
    },
  }
}

function describeType(event: unknown): string {
  try {
    const type = (event as { type?: unknown } | null)?.type
    return typeof type === 'string' ? type.slice(0, 40) : typeof event
  } catch {
    return 'unreadable'
  }
}
