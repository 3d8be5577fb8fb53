import type { Context } from '@deepseek-ai/dsh-context'
import { checkExecutionInput } from './contract/check-input.ts'
import { refuseSuspendable } from './contract/read-approval.ts'
import { claimRun } from './pipeline/claim-run.ts'
import { callConcurrency } from './pipeline/concurrency.ts'
import { dispatchCall, dispatchCallTo } from './pipeline/dispatch.ts'
import { finalizeCall, finishCall } from './pipeline/finalize.ts'
import { materializeResult } from './pipeline/materialize.ts'
import { callInfoOf, prepareCall } from './pipeline/prepare.ts'
import { failure } from './contract/results.ts'
import type { RunState } from './pipeline/run-state.ts'
import type { RegistryState, ScopeToolsState } from './registry/scope-state.ts'
import { executeBatch } from './scheduler/execute-batch.ts'
import { LOCAL_PROTOCOL, TOOL_RUNTIME_SCHEDULER } from './contract/scheduler-key.ts'
import type {
  DirectToolStages,
  DispatchSink,
  ToolRunContext,
  ToolRuntimeScheduler,
} from './contract/scheduler-types.ts'
import type { ToolExecutionInput, ToolExecutionResult } from './contract/types.ts'
import type { ToolRuntime } from './contract/runtime-types.ts'
import { toolMessages } from './contract/messages.ts'
import { createPresentationMethods } from './view/create-presentation-methods.ts'
import { createReadMethods } from './view/create-read-methods.ts'
import { createCheckMethod } from './view/create-check-method.ts'
import { createRegistrationMethods } from './view/create-registration-methods.ts'

const WHERE = {
  execute: 'tools.execute(input)',
  prepare: 'tools.prepare(input)',
  concurrency: 'tools.concurrency(input)',
  synthesize: 'tools.synthesize(input)',
} as const

/**
 * `ctx.tools` for one scope: its registry layer, the staged scheduler surface (T18, T39) and the
 * ways to run calls (`execute`, `executeBatch`). Registration, reads and UI labels are built in
 * view/; what runs calls lives here. Built once per scope and kept as a plain property.
 */
export function createScopeView(registry: RegistryState, ctx: Context): ToolRuntime {
  const parent = ctx.parent === undefined ? undefined : registry.scopes.get(ctx.parent.scope)
  const state: ScopeToolsState = {
    ctx,
    parent,
    registry,
    local: new Map(),
    restrictions: new Set(),
    guards: [],
    mode: undefined,
    cacheVersion: -1,
    visible: new Map(),
  }
  registry.scopes.set(ctx.scope, state)

  const checkInput = (method: keyof typeof WHERE, input: ToolExecutionInput): ToolExecutionInput =>
    checkExecutionInput(WHERE[method], 'input', input).input

  // The stages as the pipeline runs them: a promise only when one was awaited (a batch of this
  // copy drives them so); the scheduler's promise forms wrap them. Like the scheduler object, not
  // frozen: a test may stand in for a stage that misbehaves.
  const dispatch = (run: ToolRunContext) => dispatchCall(claimRun(registry, 'dispatch', run))
  const direct: { -readonly [K in keyof DirectToolStages]: DirectToolStages[K] } = {
    prepare: (input: ToolExecutionInput) => prepareCall(state, input, checkInput('prepare', input)),
    dispatch,
    // the same stage answering into a batch's sink; stands for `dispatch` only while that is this one
    dispatchTo: Object.freeze({
      stage: dispatch,
      into: (run: ToolRunContext, sink: DispatchSink, index: number) =>
        dispatchCallTo(claimRun(registry, 'dispatch', run), sink, index),
    }),
    finalize: (run: ToolRunContext, result: ToolExecutionResult) =>
      finalizeCall(claimRun(registry, 'finalize', run, result), result),
  }

  const scheduler: ToolRuntimeScheduler = {
    protocol: LOCAL_PROTOCOL,
    direct,
    prepare(input) {
      return Promise.resolve(direct.prepare(input))
    },
    // Not `async`: returning the pipeline's own promise (or a resolved one) saves the extra
    // promise and ticks an async wrapper adds; a refused claim still rejects.
    dispatch(run) {
      try {
        return Promise.resolve(direct.dispatch(run))
      } catch (error) {
        return Promise.reject(error as Error)
      }
    },
    finalize(run, result) {
      try {
        return Promise.resolve(direct.finalize(run, result))
      } catch (error) {
        return Promise.reject(error as Error)
      }
    },
    finish: (run, result) => finishCall(claimRun(registry, 'finish', run, result), result),
    concurrency(input) {
      return callConcurrency(state, input, checkInput('concurrency', input))
    },
    synthesize(raw, code, message) {
      const input = checkInput('synthesize', raw)
      const call = callInfoOf(state, input)
      const result = materializeResult(failure(code, message), input.name, registry.options.maxResultBytes)
      if (ctx.hasListeners('tools/result')) ctx.emit('tools/result', result, call)
      return result
    },
  }
  // what `direct` stands for: a batch uses it only while the scheduler still has these stages
  direct.promiseForms = {
    prepare: scheduler.prepare,
    dispatch: scheduler.dispatch,
    finalize: scheduler.finalize,
  }

  const synthesizeDenied = (input: ToolExecutionInput): ToolExecutionResult => {
    const result = materializeResult(
      failure('DENIED', toolMessages.approvalPending(input.name), { name: 'ApprovalPending' }),
      input.name,
      registry.options.maxResultBytes,
    )
    if (ctx.hasListeners('tools/result')) ctx.emit('tools/result', result, callInfoOf(state, input))
    return result
  }

  const view: ToolRuntime = {
    scope: ctx,
    [TOOL_RUNTIME_SCHEDULER]: scheduler,
    ...createRegistrationMethods(state),
    ...createReadMethods(state, scheduler),
    ...createCheckMethod(state),
    ...createPresentationMethods(state),

    async execute(raw) {
      // T36: the input is read once, here; only the copy is used from now on.
      const input = checkInput('execute', raw)
      refuseSuspendable('tools.execute(input)', 'input', input)
      // Each stage is awaited only when it returned a promise: a call with nothing asynchronous in it
      // (no listener, a body that returns a plain value) settles without a tick of its own.
      const preparing = prepareCall(state, undefined, input)
      const prepared = preparing instanceof Promise ? await preparing : preparing
      switch (prepared.stage) {
        case 'dispatch': {
          const dispatching = dispatchCall(prepared.run as RunState)
          const dispatched = dispatching instanceof Promise ? await dispatching : dispatching
          if (dispatched.stage !== 'post-result')
            return finishCall(dispatched.run as RunState, dispatched.result)
          const finalizing = finalizeCall(dispatched.run as RunState, dispatched.result)
          return finalizing instanceof Promise ? await finalizing : finalizing
        }
        case 'post-result': {
          const finalizing = finalizeCall(prepared.run as RunState, prepared.result)
          return finalizing instanceof Promise ? await finalizing : finalizing
        }
        case 'final-result':
          return finishCall(prepared.run as RunState, prepared.result)
        case 'approval-pending':
          // unreachable (a suspendable input is refused above); the call still gets one result
          return synthesizeDenied(input)
        default: {
          const never: never = prepared
          return never
        }
      }
    },

    executeBatch(inputs, options = {}) {
      return executeBatch({
        tools: view,
        logger: registry.logger,
        defaultMaxParallel: registry.options.maxParallelToolCalls,
        inputs,
        options,
      })
    },
  }
  return view
}
