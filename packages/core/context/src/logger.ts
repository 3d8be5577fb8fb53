export type LogLevel = 'debug' | 'info' | 'warn' | 'error'

/** Structured logger. Implementations must not throw. */
export interface Logger {
  debug(message: string, fields?: Readonly<Record<string, unknown>>): void
  info(message: string, fields?: Readonly<Record<string, unknown>>): void
  warn(message: string, fields?: Readonly<Record<string, unknown>>): void
  error(message: string, fields?: Readonly<Record<string, unknown>>): void
}

export interface LogEntry {
  readonly level: LogLevel
  readonly message: string
  readonly fields: Readonly<Record<string, unknown>> | undefined
}

/** A logger that keeps entries in memory, for tests that assert on what was reported. */
export interface MemoryLogger extends Logger {
  readonly entries: readonly LogEntry[]
  clear(): void
}

const LEVEL_RANK: Record<LogLevel, number> = { debug: 0, info: 1, warn: 2, error: 3 }

function makeLogger(
  write: (level: LogLevel, message: string, fields?: Readonly<Record<string, unknown>>) => void,
): Logger {
  return {
    debug: (message, fields) => write('debug', message, fields),
    info: (message, fields) => write('info', message, fields),
    warn: (message, fields) => write('warn', message, fields),
    error: (message, fields) => write('error', message, fields),
  }
}

export function createMemoryLogger(): MemoryLogger {
  const entries: LogEntry[] = []
  return {
    ...makeLogger((level, message, fields) => {
      entries.push({ level, message, fields })
    }),
    entries,
    clear: () => {
      entries.length = 0
    },
  }
}

/** Writes entries at or above `level` (default `warn`) to stderr. */
export function createConsoleLogger(options: { level?: LogLevel } = {}): Logger {
  const min = LEVEL_RANK[options.level ?? 'warn']
  return makeLogger((level, message, fields) => {
    if (LEVEL_RANK[level] < min) return
    try {
      if (fields === undefined) console.error(`[dsh ${level}] ${message}`)
      else console.error(`[dsh ${level}] ${message}`, fields)
    } catch {
      // a logger must never throw into the code that reports through it
    }
  })
}

export const silentLogger: Logger = makeLogger(() => {})
