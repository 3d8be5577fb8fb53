import { describeValue } from '@deepseek-ai/dsh-llm'
import { ToolsError } from './errors.ts'
import { PACKAGE_NAME, PACKAGE_PATH, PACKAGE_VERSION } from './package-info.ts'
import type { SchedulerProtocol, ToolRuntimeScheduler } from './scheduler-types.ts'

export type { SchedulerProtocol } from './scheduler-types.ts'

/**
 * The key under which `ctx.tools` exposes its scheduler. `Symbol.for` makes every physical copy of
 * this package agree on it; the protocol record beside it tells a consumer whether the copy that
 * installed `ctx.tools` speaks its version (T19).
 */
export const TOOL_RUNTIME_SCHEDULER: unique symbol = Symbol.for('@deepseek-ai/dsh-tools.runtime-scheduler')

export const LOCAL_PROTOCOL: SchedulerProtocol = Object.freeze({
  packageName: PACKAGE_NAME,
  version: PACKAGE_VERSION,
  path: PACKAGE_PATH,
})

/** Same major (for 0.x: same minor), per semver's compatibility rule. */
export function protocolsCompatible(a: string, b: string): boolean {
  const [aMajor, aMinor] = a.split('.')
  const [bMajor, bMinor] = b.split('.')
  if (aMajor !== bMajor) return false
  return aMajor !== '0' || aMinor === bMinor
}

function describeProtocol(protocol: SchedulerProtocol): string {
  return `${protocol.packageName}@${protocol.version} at ${protocol.path}`
}

export function mismatchError(provider: SchedulerProtocol, consumer: SchedulerProtocol): ToolsError {
  return new ToolsError({
    code: 'SCHEDULER_VERSION_MISMATCH',
    kind: 'system',
    message:
      `ctx.tools was installed by ${describeProtocol(provider)}, but ${describeProtocol(consumer)} ` +
      `cannot drive it: versions ${provider.version} and ${consumer.version} are not compatible. ` +
      'Deduplicate @deepseek-ai/dsh-tools so that every plugin resolves a compatible version.',
  })
}

/**
 * The scheduler behind `tools`, checked for compatibility with this copy of the package. Fails
 * with a message naming both versions and paths instead of crashing later in a tool call.
 */
export function resolveToolRuntimeScheduler(tools: unknown): ToolRuntimeScheduler {
  const scheduler =
    typeof tools === 'object' && tools !== null
      ? (tools as { [TOOL_RUNTIME_SCHEDULER]?: unknown })[TOOL_RUNTIME_SCHEDULER]
      : undefined
  if (typeof scheduler !== 'object' || scheduler === null) {
    throw new ToolsError({
      code: 'NOT_INSTALLED',
      message: `ctx.tools does not expose TOOL_RUNTIME_SCHEDULER (got ${describeValue(tools)}); call installTools(ctx) first (consumer: ${describeProtocol(LOCAL_PROTOCOL)})`,
    })
  }
  const protocol = (scheduler as { protocol?: SchedulerProtocol }).protocol
  if (
    typeof protocol?.version !== 'string' ||
    !protocolsCompatible(protocol.version, LOCAL_PROTOCOL.version)
  ) {
    throw mismatchError(
      typeof protocol?.version === 'string'
        ? protocol
        : { packageName: '@deepseek-ai/dsh-tools', version: 'unknown', path: 'unknown' },
      LOCAL_PROTOCOL,
    )
  }
  return scheduler as ToolRuntimeScheduler
}
