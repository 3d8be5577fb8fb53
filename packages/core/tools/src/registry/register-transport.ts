import type { Disposer } from '@deepseek-ai/dsh-context'
import type { AnyToolDefinition } from '../contract/types.ts'

/**
 * The key of the one way to register the reserved `run_code` name: a method of each `ctx.tools`
 * view that only the Code Mode installer calls. Not part of the `ToolRuntime` type; `Symbol.for` so
 * an installer from another copy of the package reaches a compatible runtime (T19).
 */
export const REGISTER_TRANSPORT: unique symbol = Symbol.for('@deepseek-ai/dsh-tools.register-transport')

export interface TransportRegistrar {
  /** Registers the Code Mode transport (named `run_code`) in this scope; returns a disposer. */
  [REGISTER_TRANSPORT](definition: AnyToolDefinition): Disposer
}
