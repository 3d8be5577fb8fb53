import type { EmitListener, ScopeInfo, WaterfallListener } from '@deepseek-ai/dsh-context'
import type {
  ExecuteCall,
  LateToolOutcome,
  PostExecuteCall,
  PreExecuteDecision,
  PostExecuteDecision,
  ToolCallInfo,
  ToolExecutionResult,
  ToolGuard,
} from '@deepseek-ai/dsh-tools'
import {
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context as OtelContext,
  type Tracer,
} from '@opentelemetry/api'
import type { AgentTrace } from './agent-trace.ts'
import { GenAiOperations, OtelAttributes as A, OtelEvents as E } from './attributes.ts'
import {
  addCall,
  allCalls,
  createCallTable,
  findCall,
  findCallByInfo,
  findEnclosingCall,
  removeCall,
  type CallTrace,
} from './call-table.ts'
import { captureJson, clipText } from './capture.ts'
import { now } from './clock.ts'
import type { ResolvedOtelConfig } from './read-config.ts'
import type { Reporter } from './report.ts'

/** The pipeline listeners of the plugin, and what ends the spans still open when it goes away. */
export interface ToolTracer {
  readonly preExecute: WaterfallListener<[call: ToolCallInfo], PreExecuteDecision>
  readonly guard: ToolGuard
  readonly dispatch: WaterfallListener<[call: ExecuteCall], ToolExecutionResult>
  readonly body: WaterfallListener<[call: ExecuteCall], ToolExecutionResult>
  readonly postExecute: WaterfallListener<[call: PostExecuteCall], PostExecuteDecision>
  readonly result: EmitListener<[result: ToolExecutionResult, call: ToolCallInfo]>
  readonly lateOutcome: EmitListener<[late: LateToolOutcome, call: ToolCallInfo]>
  /** Ends every span still open, marked `dsh.unfinished`. */
  close(): void
}

/**
 * A nested call's parent: the `run_code` call whose program made it (T33). Checked, not trusted: a
 * tools copy older than the transport has no such field, and a copy-on-pass listener may drop it.
 */
function parentCallIdOf(call: ToolCallInfo): string | undefined {
  const id: unknown = call.parentCallId
  return typeof id === 'string' && id !== '' ? id : undefined
}

/** Names and ids can come from the model: span names and attributes get at most this many characters. */
const MAX_NAME = 100
const MAX_ID = 200

/** `text` cut to `max` UTF-16 units, never inside a surrogate pair. */
function clipChars(text: string, max: number): string {
  if (text.length <= max) return text
  const end = /[\uD800-\uDBFF]/.test(text[max - 1]!) ? max - 1 : max
  return `${text.slice(0, end)}…`
}

function codeOf(result: ToolExecutionResult): string | undefined {
  return result.isError ? result.error.info?.code : undefined
}

/**
 * One `execute_tool {name}` span per tool call, built from the public pipeline only: the outermost
 * `tools/pre-execute` listener opens it, an abstaining guard, the outermost and innermost
 * `tools/execute` wrappers and the outermost `tools/post-execute` listener mark the stages, and
 * `tools/result` ends it. Calls are matched by call id and scope; nothing is carried in async
 * context. Every listener passes the call on exactly as it came (it never changes a decision or a
 * result) and contains its own failures.
 */
export function createToolTracer(options: {
  readonly tracer: Tracer
  readonly config: ResolvedOtelConfig
  readonly agents: ReadonlyMap<ScopeInfo, AgentTrace>
  readonly report: Reporter
}): ToolTracer {
  const { tracer, config, agents, report } = options
  const { captureArguments, captureResults, maxCaptureBytes } = config
  const table = createCallTable()
  /** Calls answered while their body still ran, until their late outcome arrives (or the call is collected). */
  let late = new WeakMap<ToolCallInfo, CallTrace>()

  const contextOf = (t: CallTrace): OtelContext => (t.context ??= trace.setSpan(ROOT_CONTEXT, t.span))

  /** The traced agent whose scope (or an ancestor of it) the call runs in, for a call of a step. */
  const agentOf = (call: ToolCallInfo): AgentTrace | undefined => {
    if (agents.size === 0 || call.turn === undefined || call.step === undefined) return undefined
    for (let s: ScopeInfo | undefined = call.scope; s !== undefined; s = s.parent) {
      const agent = agents.get(s)
      if (agent !== undefined) return agent
    }
    return undefined
  }

  const open = (call: ToolCallInfo): CallTrace | undefined => {
    try {
      const parentCallId = parentCallIdOf(call)
      const toolName = clipChars(call.toolName, MAX_NAME)
      const attributes: Attributes = {
        [A.GEN_AI_OPERATION_NAME]: GenAiOperations.EXECUTE_TOOL,
        [A.GEN_AI_TOOL_NAME]: toolName,
        [A.GEN_AI_TOOL_CALL_ID]: clipChars(call.callId, MAX_ID),
        [A.GEN_AI_TOOL_TYPE]: 'function',
        [A.DSH_SCOPE]: call.scope.name,
      }
      if (call.turn !== undefined) attributes[A.DSH_TURN] = call.turn
      if (call.step !== undefined) attributes[A.DSH_STEP] = call.step
      if (parentCallId !== undefined) attributes[A.DSH_TOOL_PARENT_CALL_ID] = clipChars(parentCallId, MAX_ID)
      // A nested call goes under its `run_code` span; an agent's call under its step span; else a root span.
      const parent =
        parentCallId === undefined ? undefined : findEnclosingCall(table, parentCallId, call.scope)
      const agent = parent === undefined ? agentOf(call) : undefined
      const parentContext =
        parent !== undefined
          ? contextOf(parent)
          : agent !== undefined
            ? (agent.stepContext(call.turn!, call.step!) ?? ROOT_CONTEXT)
            : ROOT_CONTEXT
      const span = tracer.startSpan(
        `${GenAiOperations.EXECUTE_TOOL} ${toolName}`,
        { kind: SpanKind.INTERNAL, startTime: now(), attributes },
        parentContext,
      )
      const t: CallTrace = {
        callId: call.callId,
        scope: call.scope,
        info: call,
        // (a nested call has no tool-call-start event of its own)
        agent: parentCallId === undefined ? agent : undefined,
        span,
        recording: span.isRecording(),
        context: undefined,
        guarded: false,
        bodyStarted: false,
        bodyEnded: false,
        bodyCut: false,
        answeredAt: undefined,
        ended: false,
        next: undefined,
      }
      addCall(table, t)
      if (t.recording && captureArguments)
        span.setAttribute(A.GEN_AI_TOOL_CALL_ARGUMENTS, captureJson(call.args, maxCaptureBytes))
      return t
    } catch (error) {
      report('opening a tool call span', error)
      return undefined
    }
  }

  const mark = (t: CallTrace, event: string): void => {
    if (t.ended) return
    try {
      t.span.addEvent(event, now())
    } catch (error) {
      report(`recording the ${event} event`, error)
    }
  }

  /**
   * The traced call of a stage that passes the call info itself (guards, result, late outcome):
   * the very object pre-execute saw, or, when a listener outside the plugin's passed a copy inward,
   * the call with that id in that scope.
   */
  const seen = (call: ToolCallInfo): CallTrace | undefined =>
    findCallByInfo(table, call) ?? findCall(table, call.callId, call.scope, call.args)

  /** The traced call a wrapper or post-execute listener sees (another object, same id and scope). */
  const live = (call: ToolCallInfo): CallTrace | undefined => {
    try {
      const t = findCall(table, call.callId, call.scope, call.args)
      return t?.recording === true ? t : undefined
    } catch (error) {
      report('finding a tool call span', error)
      return undefined
    }
  }

  const end = (t: CallTrace, result: ToolExecutionResult): void => {
    const { span, agent, info } = t
    span.addEvent(E.RESULT, now())
    // by now the call's tool-call-start event has reached a tracer that reads the agent's events in step
    if (agent !== undefined) {
      const during = agent.startedDuringStream(info.turn!, info.step!, info.callId)
      if (during !== undefined) span.setAttribute(A.DSH_TOOL_DURING_STREAM, during)
    }
    if (result.isError) {
      const info = result.error.info
      const attributes: Attributes = {
        [A.DSH_TOOL_OUTCOME]: 'error',
        [A.ERROR_TYPE]: info?.code ?? '_OTHER',
      }
      if (info !== undefined) {
        attributes[A.DSH_TOOL_ERROR_CODE] = info.code
        attributes[A.DSH_TOOL_ERROR_NAME] = info.name
      }
      const message = captureResults ? clipText(result.error.message, maxCaptureBytes) : undefined
      if (message !== undefined) attributes[A.DSH_TOOL_ERROR_MESSAGE] = message
      span.setAttributes(attributes)
      span.setStatus({ code: SpanStatusCode.ERROR, message: message ?? info?.code ?? 'error' })
    } else {
      const attributes: Attributes = { [A.DSH_TOOL_OUTCOME]: 'success' }
      if (result.concludesTurn === true) attributes[A.DSH_TOOL_CONCLUDES_TURN] = true
      if (captureResults) {
        attributes[A.GEN_AI_TOOL_CALL_RESULT] = captureJson(
          result.value !== undefined ? result.value : result.content,
          maxCaptureBytes,
        )
      }
      span.setAttributes(attributes)
    }
    span.end(now())
  }

  const traceLate = (t: CallTrace, outcome: LateToolOutcome, call: ToolCallInfo): void => {
    const toolName = clipChars(call.toolName, MAX_NAME)
    const attributes: Attributes = {
      [A.GEN_AI_TOOL_NAME]: toolName,
      [A.GEN_AI_TOOL_CALL_ID]: clipChars(call.callId, MAX_ID),
      [A.DSH_TOOL_LATE_OUTCOME]: outcome.kind,
    }
    const span = tracer.startSpan(
      `late_outcome ${toolName}`,
      { kind: SpanKind.INTERNAL, startTime: t.answeredAt ?? now(), attributes },
      contextOf(t),
    )
    switch (outcome.kind) {
      case 'value':
        if (captureResults)
          span.setAttribute(A.GEN_AI_TOOL_CALL_RESULT, captureJson(outcome.value, maxCaptureBytes))
        break
      case 'error': {
        const message = captureResults ? clipText(outcome.message, maxCaptureBytes) : undefined
        if (message !== undefined) span.setAttribute(A.DSH_TOOL_ERROR_MESSAGE, message)
        span.setStatus({
          code: SpanStatusCode.ERROR,
          message: message ?? 'the body failed after its call was answered',
        })
        break
      }
      case 'abandoned':
        span.setStatus({ code: SpanStatusCode.ERROR, message: 'the body never settled; abandoned' })
        break
      default: {
        const never: never = outcome
        return never
      }
    }
    span.end(now())
  }

  return {
    preExecute(call, next) {
      const t = open(call)
      if (t === undefined || !t.recording) return next()
      mark(t, E.PRE_EXECUTE)
      return next().then((decision) => {
        let type: unknown
        try {
          type = (decision as { type?: unknown } | null | undefined)?.type
        } catch {
          // a hostile decision is the pipeline's to refuse; tracing just does not mark it
        }
        // allowed: the guards run next, now; asked: the approval runs first, and the plugin's guard marks the guards
        if (type === 'allow') {
          t.guarded = true
          mark(t, E.GUARDS)
        } else if (type === 'ask') mark(t, E.APPROVAL)
        return decision
      })
    },

    guard(call) {
      try {
        const t = seen(call)
        if (t?.recording === true && !t.guarded) {
          t.guarded = true
          mark(t, E.GUARDS)
        }
      } catch (error) {
        report('marking the guards', error)
      }
      return undefined
    },

    dispatch(call, next) {
      const t = live(call)
      if (t === undefined) return next()
      mark(t, E.DISPATCH)
      return next().then((result) => {
        t.answeredAt = now()
        return result
      })
    },

    body(call, next) {
      const t = live(call)
      if (t === undefined) return next()
      t.bodyStarted = true
      mark(t, E.BODY_START)
      return next().then((result) => {
        t.bodyEnded = true
        try {
          const code = codeOf(result)
          t.bodyCut = code === 'ABORTED' || code === 'TIMEOUT'
        } catch {
          t.bodyCut = true
        }
        mark(t, E.BODY_END)
        return result
      })
    },

    postExecute(call, next) {
      const t = live(call)
      if (t !== undefined) mark(t, E.POST_EXECUTE)
      return next()
    },

    result(result, call) {
      // a call that never reached pre-execute (unknown tool, invalid arguments, aborted first) opens here
      const t = seen(call) ?? open(call)
      if (t === undefined) return
      removeCall(table, t)
      if (!t.recording) return
      try {
        end(t, result)
      } catch (error) {
        report('ending a tool call span', error)
      }
      t.ended = true
      // answered while the body still ran: its late outcome will come (T38)
      if (t.bodyStarted && (!t.bodyEnded || t.bodyCut)) late.set(call, t)
    },

    lateOutcome(outcome, call) {
      try {
        let t = late.get(call)
        if (t !== undefined) late.delete(call)
        // the body settled while post-execute still ran: the call is still open
        else t = seen(call)
        if (t === undefined || !t.recording) return
        traceLate(t, outcome, call)
      } catch (error) {
        report('tracing a late outcome', error)
      }
    },

    close() {
      const at = now()
      for (const t of allCalls(table)) {
        removeCall(table, t)
        if (!t.recording || t.ended) continue
        t.ended = true
        try {
          t.span.setAttribute(A.DSH_UNFINISHED, true)
          t.span.end(at)
        } catch (error) {
          report('ending an unfinished tool call span', error)
        }
      }
      late = new WeakMap()
    },
  }
}
