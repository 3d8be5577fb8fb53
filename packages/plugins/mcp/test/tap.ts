import { once } from 'node:events'
import { createServer, type Server } from 'node:net'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'

const TAP = fileURLToPath(new URL('./fixtures/tap.mjs', import.meta.url))

/** One JSON-RPC message that crossed the wire: client → server (`c2s`) or server → client (`s2c`). */
export interface Tapped {
  readonly dir: 'c2s' | 's2c'
  readonly message: {
    readonly id?: string | number
    readonly method?: string
    readonly params?: Record<string, unknown>
    readonly result?: Record<string, unknown>
    readonly error?: { readonly code: number; readonly message: string }
  }
}

export interface Tap {
  /** What crossed so far, in order. */
  readonly seen: readonly Tapped[]
  /** Resolves with the first message (already seen or still to come) that `match` accepts. */
  waitFor(match: (tapped: Tapped) => boolean): Promise<Tapped>
  /** The stdio server config that runs `command args` behind the tap. */
  wrap(command: string, args: readonly string[]): { command: string; args: string[] }
  close(): Promise<void>
}

/**
 * A listener for fixtures/tap.mjs: every message either side sends is reported here before it is
 * passed on. Waiting on a message is what makes an ordering deterministic (no sleeps).
 */
export async function startTap(): Promise<Tap> {
  const seen: Tapped[] = []
  const waiters: { match: (tapped: Tapped) => boolean; resolve: (tapped: Tapped) => void }[] = []
  const server: Server = createServer((socket) => {
    createInterface({ input: socket }).on('line', (line) => {
      const tapped = JSON.parse(line) as Tapped
      seen.push(tapped)
      for (const waiter of waiters.splice(0)) {
        if (waiter.match(tapped)) waiter.resolve(tapped)
        else waiters.push(waiter)
      }
    })
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const { port } = server.address() as { port: number }
  return {
    seen,
    waitFor: (match) => {
      const found = seen.find(match)
      if (found !== undefined) return Promise.resolve(found)
      return new Promise((resolve) => waiters.push({ match, resolve }))
    },
    wrap: (command, args) => ({ command: process.execPath, args: [TAP, String(port), command, ...args] }),
    close: async () => {
      server.close()
      server.unref()
    },
  }
}
