import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { createRequire } from 'node:module'
import { createServer } from 'node:net'

/**
 * The official reference server (`@modelcontextprotocol/server-everything`, pinned in
 * devDependencies): its launcher script, run with this Node.
 */
export const EVERYTHING = createRequire(import.meta.url).resolve(
  '@modelcontextprotocol/server-everything/dist/index.js',
)

export const everythingStdio = (timeoutMs = 20_000) =>
  ({
    transport: 'stdio',
    command: process.execPath,
    args: [EVERYTHING, 'stdio'],
    stderr: 'ignore',
    timeoutMs,
  }) as const

/** A free TCP port on 127.0.0.1 (the server binds it right after; nothing else here races for it). */
export async function freePort(): Promise<number> {
  const probe = createServer()
  probe.listen(0, '127.0.0.1')
  await once(probe, 'listening')
  const address = probe.address()
  probe.close()
  await once(probe, 'close')
  if (typeof address !== 'object' || address === null) throw new Error('no port')
  return address.port
}

export interface EverythingHttp {
  readonly url: string
  readonly port: number
  child: ChildProcess
  /** Kills the server (SIGKILL: no goodbye to the client) and waits for the exit. */
  kill(): Promise<void>
  /** Starts it again on the same port (a fresh process: every session it had is gone). */
  restart(): Promise<void>
  stop(): Promise<void>
}

async function launch(port: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, [EVERYTHING, 'streamableHttp'], {
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  // It says so on stderr once it listens.
  await new Promise<void>((resolve, reject) => {
    let seen = ''
    child.stderr!.on('data', (chunk: Buffer) => {
      seen += chunk.toString()
      if (seen.includes('listening on port')) resolve()
    })
    child.once('exit', (code) => reject(new Error(`server-everything exited (${code}): ${seen}`)))
  })
  child.stderr!.resume()
  return child
}

/** server-everything over Streamable HTTP on 127.0.0.1 (a free port). */
export async function startEverythingHttp(): Promise<EverythingHttp> {
  const port = await freePort()
  const server: EverythingHttp = {
    url: `http://127.0.0.1:${port}/mcp`,
    port,
    child: await launch(port),
    kill: async () => {
      const { child } = server
      if (child.exitCode !== null || child.signalCode !== null) return
      const exited = once(child, 'exit')
      child.kill('SIGKILL')
      await exited
    },
    restart: async () => {
      server.child = await launch(port)
    },
    stop: () => server.kill(),
  }
  return server
}
