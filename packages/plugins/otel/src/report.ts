import type { Logger } from '@deepseek-ai/dsh-context'

/** Reports a failure inside the plugin (a tracer, a span or an exporter that threw). */
export type Reporter = (what: string, error: unknown) => void

/** How many failures are logged as errors; later ones go to `debug`, so a broken exporter cannot flood the log. */
const LOUD_FAILURES = 5

/**
 * Failures of the tracing itself never reach the tool call: they are logged (the first few as
 * errors, then at debug level) and the call goes on as if the plugin were not there.
 */
export function createReporter(logger: Logger): Reporter {
  let count = 0
  return (what, error) => {
    count++
    try {
      const message = `otelTracing: ${what} failed; tracing skipped it, the tool call is not affected`
      if (count <= LOUD_FAILURES) logger.error(message, { error })
      else logger.debug(message, { error })
    } catch {
      // a logger must not throw; if it does, there is nowhere left to report to
    }
  }
}

/** A short, low-cardinality name for a thrown value (`error.type`): its `code`, else its `name`. */
export function errorType(error: unknown): string {
  try {
    if (typeof error === 'object' && error !== null) {
      const code = (error as { code?: unknown }).code
      if (typeof code === 'string' && code !== '' && code.length <= 100) return code
      const name = (error as { name?: unknown }).name
      if (typeof name === 'string' && name !== '' && name.length <= 100) return name
    }
  } catch {
    // a hostile getter: fall through to the conventions' fallback value
  }
  return '_OTHER'
}

/** The message of a thrown value, or a description of it; never throws. */
export function errorMessage(error: unknown): string {
  try {
    if (typeof error === 'object' && error !== null) {
      const message = (error as { message?: unknown }).message
      if (typeof message === 'string') return message
    }
    return String(error)
  } catch {
    return 'an error that could not be read'
  }
}
