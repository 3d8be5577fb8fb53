export interface ThrowawayRedis {
  readonly url: string
  readonly port: number
  /** The current server's pid (a new one after `restart()`). */
  readonly pid: number | undefined
  stop(): Promise<void>
  /**
   * Kills the server (SIGKILL, as a crash would) and starts a new one on the same port and data
   * directory. Without persistence the new server starts empty; with `'aof-always'` it has every
   * write the old one acknowledged.
   */
  restart(): Promise<void>
}

export interface StartRedisOptions {
  /** `'none'` (default): no RDB, no AOF. `'aof-always'`: AOF with `appendfsync always`. */
  readonly persistence?: 'none' | 'aof-always'
}

/** Starts Debian's `redis-server` on a free 127.0.0.1 port with a temp data directory. */
export function startRedis(options?: StartRedisOptions): Promise<ThrowawayRedis>
