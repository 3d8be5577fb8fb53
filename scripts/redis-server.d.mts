export interface ThrowawayRedis {
  readonly url: string
  readonly port: number
  readonly pid: number | undefined
  stop(): Promise<void>
}

/** Starts Debian's `redis-server` on a free 127.0.0.1 port with a temp data directory. */
export function startRedis(): Promise<ThrowawayRedis>
