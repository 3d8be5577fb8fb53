// What the test suite needs from the machine besides Node and npm: PostgreSQL's server binaries,
// `redis-server` and a Chromium. Node built-ins only, so it runs before `pnpm install`.
//
// `findPrerequisites()` says which are there and which are missing; `missingMessage()` is the one
// message that names everything missing and the one command that provides it. `npm run ci`
// (scripts/ci.mjs) checks all three up front instead of failing on them one by one minutes in.
import { accessSync, constants } from 'node:fs'
import { delimiter, join } from 'node:path'
import { URL_VARIABLE, findPostgresBin } from './postgres-server.mjs'

/** Debian's Chromium, where the timeline's browser tests look unless DSH_CHROMIUM names another. */
export const DEBIAN_CHROMIUM = '/usr/bin/chromium'

function executable(path) {
  try {
    accessSync(path, constants.X_OK)
    return true
  } catch {
    return false
  }
}

function onPath(name, env) {
  return (env.PATH ?? '')
    .split(delimiter)
    .filter(Boolean)
    .map((dir) => join(dir, name))
    .find(executable)
}

/**
 * Each prerequisite with where it was found, or `missing: true`. A server given by URL
 * (`DSH_TEST_POSTGRES_URL`, `DSH_REDIS_URL`) needs no binaries. `env` defaults to `process.env`;
 * `chromiumDefault` and `postgresRoot` to Debian's paths (a test passes others).
 */
export function findPrerequisites({
  env = process.env,
  chromiumDefault = DEBIAN_CHROMIUM,
  postgresRoot = '/usr/lib/postgresql',
} = {}) {
  const postgres = (() => {
    if (env[URL_VARIABLE]) return { found: `the server ${URL_VARIABLE} names` }
    try {
      return { found: findPostgresBin(env, { debian: postgresRoot }) }
    } catch {
      return { missing: true }
    }
  })()
  const redis = env.DSH_REDIS_URL
    ? { found: 'the server DSH_REDIS_URL names' }
    : (() => {
        const path = onPath('redis-server', env)
        return path === undefined ? { missing: true } : { found: path }
      })()
  const chromium = (() => {
    if (env.DSH_CHROMIUM)
      return executable(env.DSH_CHROMIUM) ? { found: env.DSH_CHROMIUM } : { missing: true }
    if (executable(chromiumDefault)) return { found: chromiumDefault }
    const path = onPath('chromium', env)
    // found elsewhere on PATH: the tests are told where (they look at DSH_CHROMIUM, else Debian's path)
    return path === undefined ? { missing: true } : { found: path, env: { DSH_CHROMIUM: path } }
  })()
  return [
    { name: 'PostgreSQL', what: 'server binaries initdb and pg_ctl', debian: 'postgresql', ...postgres },
    { name: 'Redis', what: 'redis-server', debian: 'redis-server', ...redis },
    {
      name: 'Chromium',
      what: env.DSH_CHROMIUM ? `DSH_CHROMIUM=${env.DSH_CHROMIUM}` : `${chromiumDefault} or chromium on PATH`,
      debian: 'chromium',
      ...chromium,
    },
  ]
}

/** The one command that installs the missing prerequisites (Debian, Ubuntu). */
export function installCommand(missing, { root = false } = {}) {
  const sudo = root ? '' : 'sudo '
  return `${sudo}apt-get update && ${sudo}apt-get install -y ${missing.map((p) => p.debian).join(' ')}`
}

/** One message: what is missing, the one command that provides it, and the alternatives. */
export function missingMessage(missing, { root = false, reason } = {}) {
  const list = missing.map((p) => `${p.name} (${p.what})`).join(', ')
  return [
    `The tests need PostgreSQL, Redis and Chromium on this machine; missing: ${list}.`,
    ...(reason ? [reason] : []),
    'Install them with one command (Debian, Ubuntu):',
    '',
    `  ${installCommand(missing, { root })}`,
    '',
    `or point ${URL_VARIABLE} and DSH_REDIS_URL at servers you run (throwaway databases only) and`,
    'DSH_CHROMIUM at a Chromium binary, then run the command again.',
  ].join('\n')
}
