import { describeValue, type UserMessage } from '@deepseek-ai/dsh-llm'
import type { AnySession } from '@deepseek-ai/dsh-session'
import { resolveToolRuntimeScheduler, type ToolRuntimeScheduler } from '@deepseek-ai/dsh-tools'
import type { Agent, CreateAgentOptions, ResumeOptions, RunOptions } from './agent-types.ts'
import { resolveContextPolicy } from './resolve-context-policy.ts'
import { readApprovalReply } from './turn/answer-pending-approval.ts'
import { readElicitationReply } from './turn/answer-pending-elicitation.ts'
import { createCallExchanges } from './exchanges/create-call-exchanges.ts'
import { resolveModelRetry } from './step/model-retry.ts'
import { beginNewTurn } from './turn/begin-new-turn.ts'
import { checkAgentOptions, checkRunOptions, readUserInput } from './check-agent-options.ts'
import { createEventChannel } from './create-event-channel.ts'
import { AgentLoopError, invalidArgument } from './base/errors.ts'
import { planResume } from './turn/plan-resume.ts'
import { resolveAgentLoopConfig } from './resolve-agent-loop-config.ts'
import { runTurn, type TurnRunner } from './turn/run-turn.ts'
import { readStopWhen } from './turn/stop-conditions.ts'
import type { AgentEvent, AgentLoopService, TurnResult } from './base/types.ts'

/**
 * Creates an agent: a child scope of `options.ctx` named `options.name` that provides
 * `ctx.agentLoop` ({ config, session }), a model, and the step loop. Fails at once when `ctx.tools`
 * is missing or was installed by an incompatible copy of `@deepseek-ai/dsh-tools` (T19).
 * @example
 * const agent = createAgent({ ctx, name: 'helper', model, session: createMemorySession() })
 * const result = await agent.run('List the files')
 */
export function createAgent<S extends AnySession>(options: CreateAgentOptions<S>): Agent<S> {
  const where = 'createAgent(options)'
  checkAgentOptions(options, where)
  const { ctx, name, model, session, system } = options
  const eagerToolExecution = options.eagerToolExecution !== false
  const config = resolveAgentLoopConfig(options.config ?? {}, where)
  const modelRetry = resolveModelRetry(options.modelRetry, where)
  const context = resolveContextPolicy(options, where)
  const stopWhen = readStopWhen(options.stopWhen, where)
  if (options.prepareStep !== undefined && typeof options.prepareStep !== 'function')
    throw invalidArgument(
      `${where}: options.prepareStep must be a function, got ${describeValue(options.prepareStep)}`,
    )
  const scope = ctx.createScope({ name })
  let scheduler: ToolRuntimeScheduler
  try {
    const service: AgentLoopService = Object.freeze({ config, session })
    scope.provide('agentLoop', service)
    // what a tool body asks a person or a model while it runs, recorded in the session (T66)
    scope.provide('callExchanges', createCallExchanges(session))
    scheduler = resolveToolRuntimeScheduler(scope.tools)
  } catch (error) {
    scope.dispose()
    throw error
  }
  const runner: TurnRunner = {
    ctx: scope,
    model,
    session,
    system,
    config,
    eagerToolExecution,
    modelRetry,
    context,
    prepareStep: options.prepareStep,
    stopWhen,
  }
  let running: AbortController | undefined
  let disposed = false
  let disposeWhenIdle = false

  scope.onDispose(() => {
    disposed = true
    running?.abort(new AgentLoopError({ code: 'DISPOSED', message: `agent "${name}" was disposed` }))
  })

  const emitter = (onEvent: RunOptions['onEvent']) => (event: AgentEvent) => {
    if (onEvent === undefined) return
    try {
      onEvent(event)
    } catch (error) {
      scope.logger.error(`agent "${name}": options.onEvent threw on "${event.type}"; the event was dropped`, {
        error,
      })
    }
  }

  /** Runs `body` as the agent's only turn, with the caller's signal fused with the agent's own. */
  const exclusive = async <T>(
    method: string,
    runOptions: RunOptions,
    body: (signal: AbortSignal) => Promise<T>,
  ): Promise<T> => {
    checkRunOptions(runOptions, method)
    if (disposed)
      throw new AgentLoopError({ code: 'DISPOSED', message: `${method}: agent "${name}" was disposed` })
    if (running !== undefined) {
      throw new AgentLoopError({
        code: 'BUSY',
        message: `${method}: agent "${name}" is already running a turn; wait for it or abort it first`,
      })
    }
    const controller = new AbortController()
    running = controller
    try {
      const signal =
        runOptions.signal === undefined
          ? controller.signal
          : AbortSignal.any([runOptions.signal, controller.signal])
      return await body(signal)
    } finally {
      running = undefined
      if (disposeWhenIdle) scope.dispose()
    }
  }

  const run = (input: string | UserMessage, runOptions: RunOptions = {}): Promise<TurnResult> =>
    exclusive('agent.run(input, options)', runOptions, async (signal) => {
      const where = 'agent.run(input, options)'
      const start = await beginNewTurn(session, readUserInput(input, where), where)
      return runTurn(runner, start, {
        signal,
        emit: emitter(runOptions.onEvent),
        listening: runOptions.onEvent !== undefined,
      })
    })

  const agent: Agent<S> = {
    name,
    ctx: scope,
    session,
    config,
    model,
    eagerToolExecution,
    get running() {
      return running !== undefined
    },
    get disposed() {
      return disposed
    },
    run,
    stream(input, streamOptions = {}) {
      const channel = createEventChannel<AgentEvent>('agent.stream(input, options)')
      const result = (async () => {
        if (typeof streamOptions !== 'object' || streamOptions === null) {
          throw invalidArgument(
            `agent.stream(input, options): options must be an object, got ${describeValue(streamOptions)}`,
          )
        }
        return run(input, {
          ...(streamOptions.signal === undefined ? {} : { signal: streamOptions.signal }),
          onEvent: (event) => channel.push(event),
        })
      })()
      result.then(
        () => channel.end(),
        (error: unknown) => channel.fail(error),
      )
      return { [Symbol.asyncIterator]: () => channel.iterable[Symbol.asyncIterator](), result }
    },
    resume: (runOptions: ResumeOptions = {}) =>
      exclusive('agent.resume(options)', runOptions, async (signal) => {
        const where = 'agent.resume(options)'
        const raw = runOptions.approval
        const reply = raw === undefined ? undefined : readApprovalReply(where, raw)
        const asked = runOptions.elicitation
        const elicitation = asked === undefined ? undefined : readElicitationReply(where, asked)
        const plan = await planResume(session, scheduler, reply, where, scope.tools, elicitation)
        switch (plan.kind) {
          case 'empty':
            return undefined
          case 'ended':
          case 'paused':
            return plan.result
          case 'continue':
            return runTurn(runner, plan.start, {
              signal,
              emit: emitter(runOptions.onEvent),
              listening: runOptions.onEvent !== undefined,
            })
          default: {
            const never: never = plan
            return never
          }
        }
      }),
    dispose() {
      disposed = true
      if (running === undefined) return scope.dispose()
      disposeWhenIdle = true
      running.abort(new AgentLoopError({ code: 'DISPOSED', message: `agent "${name}" was disposed` }))
    },
  }
  return agent
}
