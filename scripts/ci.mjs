// `npm run ci`: every check on a machine with only Node and npm, which is also what CI runs.
//
// 1. Checks up front that PostgreSQL's server binaries, redis-server and a Chromium are there. As
//    root on Debian/Ubuntu it installs the missing ones with apt-get (one call, its log shown only
//    on failure); anywhere else it stops with one message naming what is missing and the one
//    command that provides it.
// 2. Starts one throwaway PostgreSQL and one throwaway Redis for the whole run (unless
//    DSH_TEST_POSTGRES_URL / DSH_REDIS_URL name servers already) and stops them at the end, so
//    every test project, the packed-artifact check and the bench smoke test share them.
// 3. Runs `pnpm install --frozen-lockfile` and `pnpm run check` (build, packed-artifact check,
//    typecheck, lint, format check, all tests) through `npx -y pnpm@<packageManager>`.
import { spawn, spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { URL_VARIABLE, startPostgres } from './postgres-server.mjs'
import { findPrerequisites, missingMessage } from './prerequisites.mjs'
import { startRedis } from './redis-server.mjs'

const repo = join(dirname(fileURLToPath(import.meta.url)), '..')
// `pnpm@<version>` (without a `+sha…` suffix): the pnpm that package.json names is the one run
const packageManager = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')).packageManager.split(
  '+',
)[0]
const windows = process.platform === 'win32'
const started = performance.now()
const say = (line) =>
  process.stderr.write(`[ci ${((performance.now() - started) / 1000).toFixed(0)}s] ${line}\n`)

function fail(message) {
  process.stderr.write(`\nnpm run ci: ${message}\n`)
  process.exit(1)
}

/** Installs the Debian packages of the missing prerequisites (root only); false if apt-get failed. */
function aptInstall(missing) {
  const packages = missing.map((p) => p.debian)
  say(`installing ${packages.join(', ')} with apt-get (root; the log is shown if it fails)`)
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }
  for (const args of [
    ['update', '-qq'],
    ['install', '-y', '-qq', ...packages],
  ]) {
    const run = spawnSync('apt-get', args, { encoding: 'utf8', env, maxBuffer: 64 * 1024 * 1024 })
    if (run.status !== 0) {
      process.stderr.write(`${run.stdout ?? ''}${run.stderr ?? ''}${run.error ? String(run.error) : ''}\n`)
      return false
    }
  }
  return true
}

function ensurePrerequisites() {
  let missing = findPrerequisites().filter((p) => p.missing)
  if (missing.length === 0) return
  const root = typeof process.getuid === 'function' && process.getuid() === 0
  const apt = spawnSync('apt-get', ['--version'], { stdio: 'ignore' }).status === 0
  if (!root || !apt) {
    fail(
      missingMessage(missing, {
        root,
        reason: root ? undefined : 'Installing them needs root, so this command does not do it for you.',
      }),
    )
  }
  if (!aptInstall(missing))
    fail(missingMessage(missing, { root, reason: 'apt-get failed (its log is above).' }))
  missing = findPrerequisites().filter((p) => p.missing)
  if (missing.length > 0)
    fail(missingMessage(missing, { root, reason: 'apt-get ran, but they are still missing.' }))
}

function runStep(label, args, env) {
  say(label)
  return new Promise((resolve) => {
    const child = spawn(windows ? 'npx.cmd' : 'npx', ['-y', packageManager, ...args], {
      cwd: repo,
      env,
      stdio: 'inherit',
      shell: windows,
    })
    child.once('error', (error) => {
      process.stderr.write(`npm run ci: could not start npx: ${error.message}\n`)
      resolve(127)
    })
    child.once('exit', (code, signal) => resolve(code ?? (signal ? 128 : 1)))
  })
}

async function main() {
  ensurePrerequisites()
  const env = { ...process.env }
  // the Chromium found on PATH rather than at Debian's path is named for the browser tests
  for (const p of findPrerequisites({ env })) Object.assign(env, p.env)
  const stops = []
  let stopping
  const stopAll = () => (stopping ??= Promise.all(stops.map((stop) => stop().catch(() => {}))))
  for (const signal of ['SIGINT', 'SIGTERM']) {
    process.on(signal, async () => {
      await stopAll()
      process.exit(128 + (signal === 'SIGINT' ? 2 : 15))
    })
  }
  try {
    if (!env[URL_VARIABLE]) {
      const postgres = await startPostgres()
      stops.push(postgres.stop)
      env[URL_VARIABLE] = postgres.url
      say(`throwaway PostgreSQL on ${postgres.url}`)
    }
    if (!env.DSH_REDIS_URL) {
      const redis = await startRedis()
      stops.push(redis.stop)
      env.DSH_REDIS_URL = redis.url
      say(`throwaway Redis on ${redis.url}`)
    }
  } catch (error) {
    await stopAll()
    fail(`could not start a throwaway server: ${error instanceof Error ? error.message : String(error)}`)
  }
  // every test project uses these two servers; none starts its own
  env.DSH_REQUIRE_POSTGRES = '1'
  env.DSH_REQUIRE_REDIS = '1'
  let status = await runStep(
    `pnpm install --frozen-lockfile (${packageManager})`,
    ['install', '--frozen-lockfile'],
    env,
  )
  if (status === 0) {
    status = await runStep(
      'pnpm run check: build, packed-artifact check, typecheck, lint, format, tests',
      ['run', 'check'],
      env,
    )
  }
  await stopAll()
  say(status === 0 ? 'every check passed' : `failed (exit ${status})`)
  process.exit(status)
}

await main()
