import type { Logger } from '@deepseek-ai/dsh-context'

/** The scope logger behind `tools`, if it has one (late-outcome hook failures go there). */
export function loggerOf(tools: unknown): Logger | undefined {
  try {
    const logger = (tools as { scope?: { logger?: Logger } }).scope?.logger
    return typeof logger?.error === 'function' ? logger : undefined
  } catch {
    return undefined
  }
}
