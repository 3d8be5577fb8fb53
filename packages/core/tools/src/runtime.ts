import type { Context, Disposer } from '@deepseek-ai/dsh-context'
import { describeValue, type ToolSchema } from '@deepseek-ai/dsh-llm'
import { ToolsError, invalidArgument } from './errors.ts'
import { callConcurrency } from './pipeline/concurrency.ts'
import { dispatchCall } from './pipeline/dispatch.ts'
import { finalizeCall, finishCall } from './pipeline/finalize.ts'
import { materializeResult } from './pipeline/materialize.ts'
import { checkExecutionInput } from './pipeline/check-input.ts'
import { claimRun } from './pipeline/claim-run.ts'
import { callInfoOf, prepareCall } from './pipeline/prepare.ts'
import { failure } from './pipeline/results.ts'
import type { RunState } from './pipeline/run-state.ts'
import { normalizeDefinition } from './registry/normalize-definition.ts'
import { compileRestriction } from './registry/restriction.ts'
import {
  presentationOf,
  restrictableNames,
  visibleTools,
  type RegistryState,
  type RuntimeOptions,
  type ScopeToolsState,
} from './registry/scope-state.ts'
import { DEFAULT_MAX_PARALLEL_TOOL_CALLS, runToolBatch } from './scheduler/run-tool-batch.ts'
import {
  LOCAL_PROTOCOL,
  TOOL_RUNTIME_SCHEDULER,
  mismatchError,
  protocolsCompatible,
} from './scheduler/scheduler-key.ts'
import type { ToolRuntimeScheduler } from './scheduler/scheduler-types.ts'
import type {
  PresentationMode,
  ToolExecutionInput,
  ToolExecutionResult,
  ToolRuntime,
  ToolsChange,
} from './types.ts'
import { createTimeoutWrapper } from './wrappers/timeout.ts'
import { createPresentationMethods } from './view/create-presentation-methods.ts'
import { toolMessages } from './messages.ts'

export interface InstallToolsOptions {
  /** Largest raw argument string, in UTF-8 bytes (default 1 MiB). */
  readonly maxArgumentBytes?: number
  /** Deepest argument nesting (default 64). */
  readonly maxArgumentDepth?: number
  /** The deployment default presentation mode (default `native`). */
  readonly defaultPresentation?: PresentationMode
  /** Timeout for tools that declare none (default: none). */
  readonly defaultTimeoutMs?: number
  /** Register the shipped timeout wrapper (default true). */
  readonly enforceTimeouts?: boolean
  /**
   * Time a call may spend in plugin code around its body, in total: pre-execute listeners, guards,
   * wrappers (outside `next`) and post-execute listeners (default 60 000 ms). Past it the call
   * fails with `PIPELINE_FAILED` (`PolicyTimeout`). The body (bounded by `timeoutMs`) and a
   * person answering an approval do not count.
   */
  readonly policyTimeoutMs?: number
  /**
   * After the caller's abort, how long started work may still finish and be committed as it is
   * (default 2 000 ms; 0 answers `ABORTED` at the next turn of the event loop).
   */
  readonly abortGraceMs?: number
  /**
   * How long a body that outlived its call's result (timeout, abort past the grace) is waited for
   * before it is reported `abandoned` (default 60 000 ms).
   */
  readonly lateBodyCapMs?: number
  /**
   * Largest result, in UTF-8 bytes of JSON text (default 4 MiB): a body's value (refused before it
   * is copied, at a cost bounded by the limit) and any result's content (text and image data).
   * Past it the result is `INVALID_TOOL_OUTPUT` with a message saying so.
   */
  readonly maxResultBytes?: number
}

const PRESENTATION_MODES: readonly PresentationMode[] = ['native', 'code', 'both']

// the longest delay Node timers accept; ample for the counts too
const MAX_SETTING = 2 ** 31 - 1

function positiveInteger(name: string, value: unknown, fallback: number | undefined): number | undefined {
  return integerIn(name, value, fallback, 1, MAX_SETTING)
}

function integerIn(
  name: string,
  value: unknown,
  fallback: number | undefined,
  min: 0 | 1,
  max: number,
): number | undefined {
  if (value === undefined) return fallback
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw invalidArgument(
      `installTools(ctx, options): options.${name} must be ${min === 1 ? 'a positive' : 'a non-negative'} integer ≤ ${max}, got ${describeValue(value)}`,
    )
  }
  return value
}

function readOptions(options: InstallToolsOptions): RuntimeOptions {
  if (typeof options !== 'object' || options === null) {
    throw invalidArgument(
      `installTools(ctx, options): options must be an object, got ${describeValue(options)}`,
    )
  }
  const defaultPresentation = options.defaultPresentation ?? 'native'
  if (!PRESENTATION_MODES.includes(defaultPresentation)) {
    throw invalidArgument(
      `installTools(ctx, options): options.defaultPresentation must be one of ${PRESENTATION_MODES.join(', ')}, got ${describeValue(defaultPresentation)}`,
    )
  }
  return {
    maxArgumentBytes: positiveInteger('maxArgumentBytes', options.maxArgumentBytes, 1024 * 1024)!,
    maxArgumentDepth: positiveInteger('maxArgumentDepth', options.maxArgumentDepth, 64)!,
    defaultPresentation,
    defaultTimeoutMs: positiveInteger('defaultTimeoutMs', options.defaultTimeoutMs, undefined),
    policyTimeoutMs: positiveInteger('policyTimeoutMs', options.policyTimeoutMs, 60_000)!,
    abortGraceMs: integerIn('abortGraceMs', options.abortGraceMs, 2_000, 0, MAX_SETTING)!,
    lateBodyCapMs: positiveInteger('lateBodyCapMs', options.lateBodyCapMs, 60_000)!,
    maxResultBytes: integerIn(
      'maxResultBytes',
      options.maxResultBytes,
      4 * 1024 * 1024,
      1,
      Number.MAX_SAFE_INTEGER,
    )!,
  }
}

/**
 * Installs `ctx.tools` on `ctx` and every descendant scope (each gets its own view, a plain
 * property). Also registers the shipped timeout wrapper on `tools/execute`. Fails at startup if
 * another copy of the package already installed an incompatible runtime (T19).
 * @example
 * const ctx = createContext()
 * installTools(ctx)
 * ctx.tools.register(defineTool({ ... }))
 */
export function installTools(ctx: Context, options: InstallToolsOptions = {}): Disposer {
  if (
    typeof ctx !== 'object' ||
    ctx === null ||
    typeof (ctx as Partial<Context>).provideScoped !== 'function'
  ) {
    throw invalidArgument(
      `installTools(ctx): ctx must be a context from createContext(), got ${describeValue(ctx)}`,
    )
  }
  const existing = (ctx as { tools?: unknown }).tools
  if (existing !== undefined) {
    const protocol = (existing as Partial<ToolRuntime>)[TOOL_RUNTIME_SCHEDULER]?.protocol
    if (protocol !== undefined && !protocolsCompatible(protocol.version, LOCAL_PROTOCOL.version)) {
      throw mismatchError(protocol, LOCAL_PROTOCOL)
    }
    throw new ToolsError({
      code: 'ALREADY_INSTALLED',
      message: `installTools(ctx): ctx.tools is already installed in scope "${ctx.scope.name}"${protocol ? ` (by ${protocol.packageName}@${protocol.version} at ${protocol.path})` : ''}`,
    })
  }
  const registry: RegistryState = {
    version: 0,
    options: readOptions(options),
    logger: ctx.logger,
    scopes: new WeakMap(),
    runs: new WeakSet(),
    shippedTimeout: options.enforceTimeouts !== false,
  }
  const disposeService = ctx.provideScoped('tools', (scopeCtx) => createScopeView(registry, scopeCtx))
  const disposeTimeout =
    options.enforceTimeouts === false
      ? undefined
      : ctx.on('tools/execute', createTimeoutWrapper(), { priority: -1000 })
  return () => {
    registry.shippedTimeout = false
    disposeTimeout?.()
    disposeService()
  }
}

function createScopeView(registry: RegistryState, ctx: Context): ToolRuntime {
  const parent = ctx.parent === undefined ? undefined : registry.scopes.get(ctx.parent.scope)
  const state: ScopeToolsState = {
    ctx,
    parent,
    registry,
    local: new Map(),
    restrictions: new Set(),
    guards: [],
    grants: new WeakMap(),
    mode: undefined,
    cacheVersion: -1,
    visible: new Map(),
  }
  registry.scopes.set(ctx.scope, state)

  const changed = (reason: ToolsChange['reason'], names: readonly string[]): void => {
    registry.version++
    if (ctx.hasListeners('tools/change'))
      ctx.emit('tools/change', Object.freeze({ scope: ctx.scope, reason, names }))
  }

  /** Ties a registration to the scope's lifetime; the returned disposer undoes both. */
  const scoped = (undo: () => void): Disposer => {
    let done = false
    let removeHook: Disposer | undefined = undefined
    const dispose = (): void => {
      if (done) return
      done = true
      removeHook?.()
      undo()
    }
    removeHook = ctx.onDispose(dispose)
    return dispose
  }

  const stateFor = (method: string, scope: Context | undefined): ScopeToolsState => {
    if (scope === undefined) return state
    const found = typeof scope === 'object' && scope !== null ? registry.scopes.get(scope.scope) : undefined
    if (found === undefined) {
      throw invalidArgument(
        `tools.${method}(…, scope): scope must be a ctx of this tree with tools installed, got ${describeValue(scope)}`,
      )
    }
    return found
  }

  const checkInput = (method: string, input: ToolExecutionInput): ToolExecutionInput =>
    checkExecutionInput(`tools.${method}(input)`, 'input', input)

  const scheduler: ToolRuntimeScheduler = {
    protocol: LOCAL_PROTOCOL,
    prepare(input) {
      return prepareCall(state, input, checkInput('prepare', input))
    },
    async dispatch(run) {
      return dispatchCall(claimRun(registry, 'dispatch', run))
    },
    async finalize(run, result) {
      return finalizeCall(claimRun(registry, 'finalize', run, result), result)
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

  const view: ToolRuntime = {
    scope: ctx,
    [TOOL_RUNTIME_SCHEDULER]: scheduler,

    register(definition, options = {}) {
      if (typeof options !== 'object' || options === null) {
        throw invalidArgument(
          `tools.register(definition, options): options must be an object, got ${describeValue(options)}`,
        )
      }
      const registrant = options.registrant
      if (registrant !== undefined && (typeof registrant !== 'string' || registrant === '')) {
        throw invalidArgument(
          `tools.register(definition, options): options.registrant must be a non-empty string, got ${describeValue(registrant)}`,
        )
      }
      const entry = normalizeDefinition(definition, { registrant, allowReserved: false })
      const clash = state.local.get(entry.name)
      if (clash !== undefined) {
        const who = (r: string | undefined): string => (r === undefined ? 'an unnamed registrant' : `"${r}"`)
        throw new ToolsError({
          code: 'DUPLICATE_TOOL',
          message: `tool "${entry.name}" is already registered in scope "${ctx.scope.name}" by ${who(clash.registrant)}; ${who(registrant)} tried to register it again`,
        })
      }
      const dispose = scoped(() => {
        if (state.local.get(entry.name) !== entry) return
        state.local.delete(entry.name)
        changed('unregister', [entry.name])
      })
      state.local.set(entry.name, entry)
      changed('register', [entry.name])
      return dispose
    },

    restrict(restriction) {
      const compiled = compileRestriction(restriction, restrictableNames(state))
      const dispose = scoped(() => {
        if (state.restrictions.delete(compiled))
          changed('unrestrict', [...(compiled.allow ?? []), ...(compiled.deny ?? [])])
      })
      state.restrictions.add(compiled)
      changed('restrict', [...(compiled.allow ?? []), ...(compiled.deny ?? [])])
      return dispose
    },

    guard(guard) {
      if (typeof guard !== 'function')
        throw invalidArgument(`tools.guard(guard): guard must be a function, got ${describeValue(guard)}`)
      const dispose = scoped(() => {
        const index = state.guards.indexOf(guard)
        if (index >= 0) state.guards.splice(index, 1)
      })
      state.guards.push(guard)
      return dispose
    },

    get(name, scope) {
      return visibleTools(stateFor('get', scope)).get(name)?.definition
    },

    list(scope) {
      return [...visibleTools(stateFor('list', scope)).values()].map((tool) => tool.definition)
    },

    schemas(scope) {
      const out: ToolSchema[] = []
      for (const tool of visibleTools(stateFor('schemas', scope)).values()) {
        out.push({
          name: tool.name,
          description: tool.definition.description,
          parameters: structuredClone(tool.parameters),
        })
      }
      return out
    },

    executionMode(input) {
      return scheduler.concurrency(input).mode
    },

    concurrency(input) {
      return scheduler.concurrency(input)
    },

    async execute(raw) {
      // T36: the input is read once, here; only the copy is used from now on.
      const input = checkInput('execute', raw)
      const prepared = await prepareCall(state, undefined, input)
      switch (prepared.stage) {
        case 'dispatch': {
          const dispatched = await dispatchCall(prepared.run as RunState)
          return dispatched.stage === 'post-result'
            ? finalizeCall(dispatched.run as RunState, dispatched.result)
            : finishCall(dispatched.run as RunState, dispatched.result)
        }
        case 'post-result':
          return finalizeCall(prepared.run as RunState, prepared.result)
        case 'final-result':
          return finishCall(prepared.run as RunState, prepared.result)
        default: {
          const never: never = prepared
          return never
        }
      }
    },

    async executeBatch(inputs, options = {}) {
      const configured = (ctx as unknown as { agentLoop?: { config?: { maxParallelToolCalls?: number } } })
        .agentLoop?.config?.maxParallelToolCalls
      const results: ToolExecutionResult[] = []
      try {
        return await runToolBatch({
          tools: view,
          calls: inputs,
          maxParallel: options.maxParallel ?? configured ?? DEFAULT_MAX_PARALLEL_TOOL_CALLS,
          ...(options.signal === undefined ? {} : { signal: options.signal }),
          hooks: { onCommit: (index, _input, result) => void (results[index] = result) },
        })
      } catch (error) {
        if (ToolsError.isInstance(error) && error.code === 'INVALID_ARGUMENT') throw error
        registry.logger.error(
          'tools.executeBatch: the batch failed; uncommitted calls got SCHEDULER_FAILED',
          { error },
        )
        return inputs.map(
          (input, index) =>
            results[index] ??
            scheduler.synthesize(input, 'SCHEDULER_FAILED', toolMessages.schedulerFailed(error)),
        )
      }
    },

    presentAs(mode) {
      if (!PRESENTATION_MODES.includes(mode)) {
        throw invalidArgument(
          `tools.presentAs(mode): mode must be one of ${PRESENTATION_MODES.join(', ')}, got ${describeValue(mode)}`,
        )
      }
      if (state.mode !== undefined) {
        throw new ToolsError({
          code: 'MODE_ALREADY_DECLARED',
          message: `tools.presentAs("${mode}"): scope "${ctx.scope.name}" already declared presentation mode "${state.mode}"; dispose that declaration first`,
        })
      }
      const dispose = scoped(() => {
        if (state.mode === mode) {
          state.mode = undefined
          changed('present', [])
        }
      })
      state.mode = mode
      changed('present', [])
      return dispose
    },

    presentation(scope) {
      return presentationOf(stateFor('presentation', scope))
    },

    ...createPresentationMethods(state),
  }
  return view
}
