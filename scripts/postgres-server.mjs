// A throwaway PostgreSQL server for tests, CI and benchmarks: `initdb` into a fresh temp directory,
// `pg_ctl start` on a free 127.0.0.1 port (no other address, a private Unix socket directory), and
// `pg_ctl stop -m immediate` plus removal of the directory at the end. Node built-ins only, so it
// runs before `pnpm install`. `startPostgres()` serves the vitest globalSetup, the bench runner and
// the packed-artifact check; scripts/with-postgres.mjs wraps a whole command (what .ci/run does).
//
// Binaries: $DSH_POSTGRES_BIN (a directory; only there when set), else `initdb` on PATH, else the newest
// /usr/lib/postgresql/<version>/bin (Debian's `postgresql` package). PostgreSQL refuses to run as
// root: as root the server runs as the `postgres` user (which that package creates).
import { spawnSync } from 'node:child_process'
import { accessSync, chownSync, constants, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { delimiter, join } from 'node:path'
import { freePort } from './free-port.mjs'

export const URL_VARIABLE = 'DSH_TEST_POSTGRES_URL'

const INSTALL_HINT =
  "install Debian's `postgresql` package (`apt-get install -y postgresql`), point DSH_POSTGRES_BIN at a " +
  `directory holding initdb and pg_ctl, or set ${URL_VARIABLE} to a server you run`

function executable(path) {
  try {
    accessSync(path, constants.X_OK)
    return true
  } catch {
    return false
  }
}

/** The directory holding `initdb` and `pg_ctl`, or an error saying how to get them. */
export function findPostgresBin(env = process.env, { debian = '/usr/lib/postgresql' } = {}) {
  const chosen = env.DSH_POSTGRES_BIN
  if (chosen) {
    // An explicit choice is the only place looked at: a wrong one fails instead of falling back.
    if (executable(join(chosen, 'initdb')) && executable(join(chosen, 'pg_ctl'))) return chosen
    throw new Error(`DSH_POSTGRES_BIN is ${chosen}, which holds no initdb and pg_ctl: ${INSTALL_HINT}`)
  }
  const candidates = (env.PATH ?? '').split(delimiter).filter(Boolean)
  if (existsSync(debian)) {
    const versions = readdirSync(debian)
      .filter((name) => /^\d+$/.test(name))
      .sort((a, b) => Number(b) - Number(a))
    candidates.push(...versions.map((version) => join(debian, version, 'bin')))
  }
  const found = candidates.find((dir) => executable(join(dir, 'initdb')) && executable(join(dir, 'pg_ctl')))
  if (found === undefined)
    throw new Error(`PostgreSQL server binaries (initdb, pg_ctl) not found: ${INSTALL_HINT}`)
  return found
}

/** Who runs the server: this user, or `postgres` when this process is root. */
function serverUser() {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return {}
  const id = (flag) => {
    const result = spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' })
    if (result.status !== 0) {
      throw new Error(
        'PostgreSQL refuses to run as root, and there is no `postgres` user to run it as: ' + INSTALL_HINT,
      )
    }
    return Number(result.stdout.trim())
  }
  return { uid: id('-u'), gid: id('-g') }
}

function run(bin, args, user, what) {
  const result = spawnSync(bin, args, { encoding: 'utf8', ...user, cwd: tmpdir() })
  if (result.status !== 0) {
    const output = `${result.stdout ?? ''}${result.stderr ?? ''}${result.error ? String(result.error) : ''}`
    throw new Error(`${what} failed (exit ${result.status}):\n${output.trim()}`)
  }
}

/**
 * Starts a throwaway server. Resolves to `{ url, stop }`; `stop()` stops it and removes its
 * directory (idempotent). Rejects with an error naming what is missing when it cannot start.
 */
export async function startPostgres(options = {}) {
  const log = options.log ?? (() => {})
  const bin = findPostgresBin()
  const user = serverUser()
  const dir = mkdtempSync(join(tmpdir(), 'dsh-pg-'))
  if (user.uid !== undefined) chownSync(dir, user.uid, user.gid)
  const data = join(dir, 'data')
  let started = false
  const stop = async () => {
    if (started) {
      started = false
      spawnSync(join(bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', '-w', 'stop'], {
        ...user,
        cwd: tmpdir(),
      })
    }
    rmSync(dir, { recursive: true, force: true })
  }
  try {
    // --no-sync: the cluster is thrown away, so initdb need not wait for the disk. The server
    // itself keeps its defaults (fsync, synchronous_commit on): commits are as durable as in production.
    run(
      join(bin, 'initdb'),
      ['-D', data, '-U', 'dsh', '--auth=trust', '-E', 'UTF8', '--locale=C', '--no-sync'],
      user,
      'initdb',
    )
    let lastError
    for (let attempt = 0; attempt < 3 && !started; attempt++) {
      const port = await freePort()
      const settings = [
        `-c listen_addresses=127.0.0.1`,
        `-c port=${port}`,
        `-c unix_socket_directories=${dir}`,
        '-c max_connections=200',
        '-c shared_buffers=16MB',
      ].join(' ')
      try {
        run(
          join(bin, 'pg_ctl'),
          ['-D', data, '-l', join(dir, 'server.log'), '-w', '-t', '60', '-o', settings, 'start'],
          user,
          'pg_ctl start',
        )
        started = true
        const url = `postgres://dsh@127.0.0.1:${port}/postgres`
        log(`PostgreSQL (${bin}) on ${url}, data in ${data}`)
        return { url, stop, dataDir: data }
      } catch (error) {
        // Most likely the port was taken between probing and starting: try another one.
        lastError = error
      }
    }
    throw lastError
  } catch (error) {
    await stop()
    throw error
  }
}
