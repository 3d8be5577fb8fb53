import type { Context, Disposer } from '@deepseek-ai/dsh-context'
import { describeValue } from '@deepseek-ai/dsh-llm'
import { ToolsError, invalidArgument } from './contract/errors.ts'
import { readInstallOptions } from './registry/read-install-options.ts'
import type { RegistryState } from './registry/scope-state.ts'
import { createScopeView } from './runtime.ts'
import {
  LOCAL_PROTOCOL,
  TOOL_RUNTIME_SCHEDULER,
  mismatchError,
  protocolsCompatible,
} from './contract/scheduler-key.ts'
import type { InstallToolsOptions } from './contract/types.ts'
import type { ToolRuntime } from './contract/runtime-types.ts'
import { installShippedTimeout } from './pipeline/with-timeout.ts'
import { createDeadlineQueue } from './deadlines/deadline-queue.ts'

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
    options: readInstallOptions(options),
    logger: ctx.logger,
    scopes: new WeakMap(),
    shippedTimeout: options.enforceTimeouts !== false,
    deadlines: createDeadlineQueue(),
  }
  const disposeService = ctx.provideScoped('tools', (scopeCtx) => createScopeView(registry, scopeCtx))
  const disposeTimeout = installShippedTimeout(ctx, registry)
  return () => {
    disposeTimeout()
    disposeService()
  }
}
