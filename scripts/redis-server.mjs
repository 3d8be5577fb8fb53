// A throwaway Redis for tests, benchmarks and CI: Debian's `redis-server` on a free 127.0.0.1 port,
// data in a fresh temp directory (no persistence), stopped and removed by `stop()`.
//
// As a command: `node scripts/redis-server.mjs <command> [args…]` starts one, runs the command with
// DSH_REDIS_URL set to it, stops it when the command ends (or this script is interrupted) and exits
// with the command's status. `.ci/run` runs the whole check this way.
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { freePort } from './free-port.mjs'

/** Persistence flags: none (the default), or an append-only file synced before every reply. */
const PERSISTENCE = {
  none: ['--save', '', '--appendonly', 'no'],
  'aof-always': ['--save', '', '--appendonly', 'yes', '--appendfsync', 'always'],
}

function startOnce(port, dir, persistence) {
  return new Promise((resolve, reject) => {
    let child
    try {
      child = spawn(
        'redis-server',
        ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, ...PERSISTENCE[persistence]],
        { stdio: ['ignore', 'pipe', 'pipe'] },
      )
    } catch (error) {
      reject(error)
      return
    }
    let output = ''
    const onData = (chunk) => {
      output += chunk
      if (output.includes('Ready to accept connections')) {
        child.stdout.off('data', onData)
        child.stdout.resume()
        resolve(child)
      }
    }
    child.stdout.setEncoding('utf8').on('data', onData)
    child.stderr.setEncoding('utf8').on('data', (chunk) => (output += chunk))
    child.once('error', (error) =>
      reject(
        error.code === 'ENOENT'
          ? new Error('redis-server is not installed: apt-get install -y redis-server (Debian)')
          : error,
      ),
    )
    child.once('exit', (code) => reject(new Error(`redis-server exited with ${code}:\n${output}`)))
  })
}

/** Ends `child` with `signal`; resolves once it has exited. */
function end(child, signal) {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve()
    child.once('exit', () => resolve())
    child.kill(signal)
  })
}

/**
 * Starts a server; resolves with its URL, a `stop()` that ends it and removes its directory, and a
 * `restart()` that kills it (SIGKILL, as a crash would) and starts a new one on the same port: with
 * persistence off (`persistence: 'none'`, the default), the new server is empty, as a production
 * Redis without AOF is after a crash; with `'aof-always'` (`appendfsync always`) it has every write
 * the old one acknowledged.
 */
export async function startRedis({ persistence = 'none' } = {}) {
  if (!(persistence in PERSISTENCE)) throw new Error(`startRedis: unknown persistence ${persistence}`)
  const dir = mkdtempSync(join(tmpdir(), 'dsh-redis-'))
  let lastError
  // a port found free can be taken before the server binds it: try a few
  for (let attempt = 0; attempt < 5; attempt++) {
    const port = await freePort()
    try {
      let child = await startOnce(port, dir, persistence)
      let stopped = false
      const stop = async () => {
        stopped = true
        await end(child, 'SIGTERM')
        rmSync(dir, { recursive: true, force: true })
      }
      const restart = async () => {
        if (stopped) throw new Error('redis-server: restart() after stop()')
        await end(child, 'SIGKILL')
        child = await startOnce(port, dir, persistence)
      }
      return {
        url: `redis://127.0.0.1:${port}`,
        port,
        get pid() {
          return child.pid
        },
        stop,
        restart,
      }
    } catch (error) {
      lastError = error
      if (String(error?.message).includes('not installed')) break
    }
  }
  rmSync(dir, { recursive: true, force: true })
  throw lastError
}

// only when run as this file (a bundle that inlines startRedis must not start a server)
if (process.argv[1] === fileURLToPath(import.meta.url) && import.meta.url.endsWith('/redis-server.mjs')) {
  const [command, ...args] = process.argv.slice(2)
  if (command === undefined) {
    console.error('usage: node scripts/redis-server.mjs <command> [args…]')
    process.exit(2)
  }
  const redis = await startRedis()
  console.log(`redis-server ${redis.url} (pid ${redis.pid}) for: ${[command, ...args].join(' ')}`)
  const child = spawn(command, args, { stdio: 'inherit', env: { ...process.env, DSH_REDIS_URL: redis.url } })
  const forward = (signal) => child.kill(signal)
  process.on('SIGINT', forward)
  process.on('SIGTERM', forward)
  child.on('exit', async (code, signal) => {
    await redis.stop()
    process.exit(code ?? (signal ? 1 : 0))
  })
}
