export interface ThrowawayRedis {
  readonly url: string
  readonly port: number
  /** The current server's pid (a new one after `restart()`). */
  readonly pid: number | undefined
  stop(): Promise<void>
  /**
   * Kills the server (SIGKILL, as a crash would) and starts a new one on the same port and data
   * directory. Persistence is off, so the new server starts empty.
   */
  restart(): Promise<void>
}

/** Starts Debian's `redis-server` on a free 127.0.0.1 port with a temp data directory. */
export function startRedis(): Promise<ThrowawayRedis>
