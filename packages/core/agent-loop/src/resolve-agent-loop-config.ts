import { describeValue } from '@deepseek-ai/dsh-llm'
import { AgentLoopError } from './base/errors.ts'
import type { AgentLoopConfig } from './base/types.ts'

/** The defaults `createAgent` fills in. */
export const DEFAULT_AGENT_LOOP_CONFIG: AgentLoopConfig = Object.freeze({
  maxParallelToolCalls: 10,
  maxSteps: 25,
})

const KEYS: readonly (keyof AgentLoopConfig)[] = ['maxParallelToolCalls', 'maxSteps']

function invalidConfig(where: string, message: string): AgentLoopError {
  return new AgentLoopError({ code: 'INVALID_CONFIG', message: `${where}: ${message}` })
}

/**
 * A complete, frozen config from a partial one: defaults filled in, every value a positive integer
 * (T23), unknown keys refused (a misspelt limit would otherwise be silently ignored).
 * @example resolveAgentLoopConfig({ maxParallelToolCalls: 4 }) // { maxParallelToolCalls: 4, maxSteps: 25 }
 */
export function resolveAgentLoopConfig(
  config: Partial<AgentLoopConfig> = {},
  where = 'resolveAgentLoopConfig(config)',
): AgentLoopConfig {
  if (typeof config !== 'object' || config === null || Array.isArray(config)) {
    throw invalidConfig(where, `config must be an object, got ${describeValue(config)}`)
  }
  for (const key of Object.keys(config)) {
    if (!(KEYS as readonly string[]).includes(key)) {
      throw invalidConfig(where, `config.${key} is not a setting (known: ${KEYS.join(', ')})`)
    }
  }
  const out: Record<string, number> = {}
  for (const key of KEYS) {
    const value: unknown = config[key] ?? DEFAULT_AGENT_LOOP_CONFIG[key]
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) {
      throw invalidConfig(where, `config.${key} must be a positive integer, got ${describeValue(value)}`)
    }
    out[key] = value
  }
  return Object.freeze(out as unknown as AgentLoopConfig)
}
