import type { Context, Disposer, ScopeInfo } from '@deepseek-ai/dsh-context'
import type { AgentEvent } from '@deepseek-ai/dsh-agent-loop'
import { describeValue } from '@deepseek-ai/dsh-llm'
import {
  ProxyTracerProvider,
  ROOT_CONTEXT,
  trace,
  type Context as OtelContext,
  type Tracer,
  type TracerProvider,
} from '@opentelemetry/api'
import manifest from '../package.json' with { type: 'json' }
import { createAgentTrace, type AgentTrace, type TracedAgent } from './agent-trace.ts'
import { OtelPluginError } from './errors.ts'
import { readConfig, type OtelConfig } from './read-config.ts'
import { createReporter } from './report.ts'
import { readTraceAgentOptions, type TraceAgentOptions } from './read-trace-agent-options.ts'
import { createToolTracer } from './tool-tracer.ts'

const WHERE = 'otelTracing(ctx, config)'

/**
 * Listener priorities: outermost for pre-execute, execute and post-execute (so a stage's event
 * marks when the whole stage began), innermost for the wrapper that times the body (inside the
 * shipped timeout wrapper at -1000). Finite, as `ctx.on` requires.
 */
export const OUTERMOST_PRIORITY = 1_000_000_000
export const INNERMOST_PRIORITY = -1_000_000_000

/** What the API's proxy provider delegates to while no SDK is registered. */
const NOOP_PROVIDER: TracerProvider = new ProxyTracerProvider().getDelegate()

/**
 * True while `provider` is the API's proxy with no SDK behind it: every span would be a no-op.
 * (A proxy of another copy of the API is taken as live: tracing then works, only less cheaply.)
 */
function isNoop(provider: TracerProvider): boolean {
  return provider instanceof ProxyTracerProvider && provider.getDelegate() === NOOP_PROVIDER
}

/** Turn, step and model-call spans of one agent; pass `onEvent` to `agent.run` / `agent.resume`. */
export interface AgentTracer {
  /** Feed it every event of the agent's turns (it never throws). */
  readonly onEvent: (event: AgentEvent) => void
  /** Ends the agent's open spans and stops tracing it. Also runs when the agent is disposed. Idempotent. */
  readonly dispose: () => void
}

/** The plugin's disposer, with the tracer it uses and the agent adapter. */
export interface OtelTracing extends Disposer {
  readonly tracer: Tracer
  /**
   * True once the plugin listens to the pipeline. While no SDK is registered behind the global
   * provider it stays dormant (false) and costs a call almost nothing; the first call or agent
   * event after an SDK appears switches it on, for the calls that follow.
   */
  readonly tracing: boolean
  /**
   * Traces an agent's turns: `invoke_agent` spans per turn, `step` spans per step, `chat` spans
   * per model call, built from the events you feed to `onEvent`. The agent's tool call spans
   * become children of their step's span. The agent must live in the scope the plugin was
   * installed on (or below). Tracing the same agent again returns the same tracer.
   */
  traceAgent(agent: TracedAgent, options?: TraceAgentOptions): AgentTracer
}

function checkContext(ctx: unknown): Context {
  if (typeof ctx !== 'object' || ctx === null || typeof (ctx as Partial<Context>).onDispose !== 'function') {
    throw new OtelPluginError({
      code: 'INVALID_ARGUMENT',
      message: `${WHERE}: ctx must be a context from createContext(), got ${describeValue(ctx)}`,
    })
  }
  const context = ctx as Context
  if ((context as { tools?: unknown }).tools === undefined) {
    throw new OtelPluginError({
      code: 'NOT_INSTALLED',
      message: `${WHERE}: scope "${context.scope.name}" has no ctx.tools; call installTools(ctx) first`,
    })
  }
  return context
}

function checkAgent(agent: unknown, ctx: Context, where: string): TracedAgent {
  const fail = (what: string): never => {
    throw new OtelPluginError({ code: 'INVALID_ARGUMENT', message: `${where}: ${what}` })
  }
  if (typeof agent !== 'object' || agent === null)
    return fail(`agent must be an agent from createAgent(), got ${describeValue(agent)}`)
  const { name, ctx: scope, model } = agent as Partial<TracedAgent>
  if (typeof name !== 'string') return fail(`agent.name must be a string, got ${describeValue(name)}`)
  if (typeof scope !== 'object' || scope === null || typeof scope.isWithin !== 'function')
    return fail(`agent.ctx must be the agent's scope, got ${describeValue(scope)}`)
  if (typeof model !== 'object' || model === null)
    return fail(`agent.model must be a LanguageModel, got ${describeValue(model)}`)
  if (typeof model.provider !== 'string' || typeof model.modelId !== 'string')
    return fail('agent.model must have string provider and modelId fields')
  if (scope.scope.disposed) return fail(`agent "${name}" was disposed`)
  if (!scope.isWithin(ctx)) {
    return fail(
      `agent "${name}" does not live in scope "${ctx.scope.name}", where the plugin was installed: ` +
        "its tool calls would not be traced. Install the plugin on the agent's parent scope (or the root).",
    )
  }
  return agent as TracedAgent
}

/**
 * The OpenTelemetry plugin: one `execute_tool {name}` span per tool call run in `ctx`'s scope or
 * below, with each pipeline stage as a span event, the outcome and error code as attributes, and
 * the arguments and results only when `captureArguments` / `captureResults` say so. Built on the
 * public pipeline only (waterfall and emit listeners, one abstaining guard). `traceAgent(agent)`
 * adds turn, step and model-call spans from an agent's event stream and puts its tool spans under
 * them. Returns the disposer (also run when the scope is disposed): it removes every listener and
 * ends the spans still open.
 * @example
 * installTools(ctx)
 * const otel = otelTracing(ctx, { tracerProvider })
 * const agent = createAgent({ ctx, name: 'helper', model, session })
 * await agent.run('hi', { onEvent: otel.traceAgent(agent).onEvent })
 */
export function otelTracing(ctx: Context, config?: OtelConfig): OtelTracing {
  const context = checkContext(ctx)
  const resolved = readConfig(WHERE, config)
  const provider = resolved.tracerProvider ?? trace.getTracerProvider()
  let tracer: Tracer
  try {
    tracer = provider.getTracer(manifest.name, manifest.version)
  } catch (error) {
    throw new OtelPluginError({
      code: 'INVALID_CONFIG',
      message: `${WHERE}: config.tracerProvider.getTracer() threw`,
      cause: error,
    })
  }
  const report = createReporter(context.logger)
  const agents = new Map<ScopeInfo, AgentTrace>()
  const handles = new Map<ScopeInfo, AgentTracer>()
  const tools = createToolTracer({ tracer, config: resolved, agents, report })

  const disposers: Disposer[] = []
  let disposed = false
  const dispose = (): void => {
    if (disposed) return
    disposed = true
    for (const undo of disposers.splice(0).reverse()) undo()
    for (const handle of [...handles.values()]) handle.dispose()
    try {
      tools.close()
    } catch (error) {
      report('ending the spans still open', error)
    }
  }
  // Listening to a stage costs every call that stage's slow path (the pipeline skips a stage
  // nobody listens to). While no SDK is registered every span would be a no-op, so the plugin
  // stays dormant: one `tools/result` observer (no waterfall) checks for an SDK, and the first
  // call that finds one switches tracing on for the calls after it.
  let active = false
  let sleeping: Disposer | undefined
  const activate = (): void => {
    if (active || disposed) return
    active = true
    sleeping?.()
    sleeping = undefined
    disposers.push(
      context.on('tools/pre-execute', tools.preExecute, { priority: OUTERMOST_PRIORITY }),
      context.tools.guard(tools.guard),
      context.on('tools/execute', tools.dispatch, { priority: OUTERMOST_PRIORITY }),
      context.on('tools/execute', tools.body, { priority: INNERMOST_PRIORITY }),
      context.on('tools/post-execute', tools.postExecute, { priority: OUTERMOST_PRIORITY }),
      context.on('tools/result', tools.result),
      context.on('tools/late-outcome', tools.lateOutcome),
    )
  }
  /** Switches tracing on once an SDK is behind the provider; cheap to ask on every call. */
  const wake = (): void => {
    if (active || disposed || isNoop(provider)) return
    try {
      activate()
    } catch (error) {
      report('switching tracing on', error)
    }
  }
  try {
    disposers.push(context.onDispose(dispose))
    if (isNoop(provider)) {
      sleeping = context.on('tools/result', wake)
      disposers.push(sleeping)
    } else activate()
  } catch (error) {
    dispose()
    throw error
  }

  const traceAgent = (agent: TracedAgent, options?: TraceAgentOptions): AgentTracer => {
    const where = 'otel.traceAgent(agent, options)'
    if (disposed)
      throw new OtelPluginError({ code: 'DISPOSED', message: `${where}: the plugin was disposed` })
    const checked = checkAgent(agent, context, where)
    const parent: OtelContext = readTraceAgentOptions(where, options).parentContext ?? ROOT_CONTEXT
    const scope = checked.ctx.scope
    const existing = handles.get(scope)
    if (existing !== undefined) return existing
    wake()
    const agentTrace = createAgentTrace({ tracer, agent: checked, parent, config: resolved, report })
    let done = false
    const handle: AgentTracer = {
      onEvent: (event) => {
        wake()
        agentTrace.onEvent(event)
      },
      dispose: () => {
        if (done) return
        done = true
        if (handles.get(scope) === handle) {
          handles.delete(scope)
          agents.delete(scope)
        }
        undoOnDispose()
        try {
          agentTrace.close()
        } catch (error) {
          report(`ending the open spans of agent "${checked.name}"`, error)
        }
      },
    }
    handles.set(scope, handle)
    agents.set(scope, agentTrace)
    // (the agent tracer's dispose runs only after this line: from the agent's scope or a caller)
    const undoOnDispose = checked.ctx.onDispose(handle.dispose)
    return handle
  }

  const handle: OtelTracing = Object.assign(dispose, { tracer, traceAgent, tracing: false })
  Object.defineProperty(handle, 'tracing', { get: () => active && !disposed, enumerable: true })
  return handle
}
