#!/usr/bin/env node
// `pnpm mutate`: the planted-bug check (issue 7). Applies each mutant of scripts/mutation/mutants.mjs
// to its source file, one at a time, runs the owning package's tests, and restores the file. A mutant
// is killed when the tests fail, survives when they pass, and times out when they hang past the
// limit (counted as detected, as the tests did not pass). Too slow for `pnpm check`: run by hand.
//
//   node scripts/mutate.mjs [--list] [--only id,id] [--package tools,session] [--timeout-factor 3]
//                           [--skip-baseline] [--quick] [--report path] [--allow-dirty]
//                           [--test-timeout 60000]
//
// Each mutant first meets the test files most likely to kill it (`firstTests` in mutants.mjs);
// only when those pass does the rest of the package run, so a survivor is always judged by the
// whole package. `--quick` stops after the first tier (its survivors are marked as such).
//
// Sources, not dist/: the tests resolve every workspace package to its src/ (vitest aliases), so a
// mutated dist/ would never be loaded. Type tests (*.test-d.ts) are switched off (DSH_SKIP_TYPE_TESTS)
// so a mutant is judged by behaviour, never by a type error the replacement may introduce.
//
// The file is restored in a `finally`, on SIGINT/SIGTERM and on a crash; the original text is also
// kept in a journal (.mutate/journal.json) while a mutant is applied, and a later run restores from
// it before anything else, so even a killed run leaves no mutant behind. While the run that wrote the
// journal is still going (its pid), any other invocation, `--list` too, refuses to start instead.
//
// The PostgreSQL store's mutants need a server: run them as
// `node scripts/with-postgres.mjs -- pnpm mutate --package session-postgres` (a throwaway one).
// The Redis projects (dispatch-bullmq) start a throwaway redis-server per test run themselves, and
// dispatch-bullmq a throwaway PostgreSQL too unless DSH_TEST_POSTGRES_URL names one (with-postgres.mjs
// starts one for the whole mutation run).
//
// Every test and hook gets `--test-timeout` ms (vitest's --testTimeout and --hookTimeout; 60 s
// unless told) instead of vitest's defaults of 5 s and 10 s: on a loaded shared machine a property
// test that needs 6 s would otherwise fail the baseline, or "kill" a mutant it never looked at. A
// test a mutant sends into a hang still fails, later; a package's whole run is still bounded by
// --timeout-factor.

import { spawn, execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { journalOwnerAlive } from './mutation/journal-owner.mjs'
import { applyMutant, checkFirstTests, checkMutants } from './mutation/mutant-list.mjs'
import { firstTests, firstTestsOf, mutants } from './mutation/mutants.mjs'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const workDir = join(root, '.mutate')
const journalPath = join(workDir, 'journal.json')
const vitestBin = join(root, 'node_modules/vitest/vitest.mjs')

function parseArgs(argv) {
  const options = {
    list: false,
    only: undefined,
    packages: undefined,
    timeoutFactor: 3,
    minTimeoutMs: 90_000,
    baseline: true,
    report: join(workDir, 'report.json'),
    allowDirty: false,
    quick: false,
    testTimeoutMs: 60_000,
  }
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i]
    const value = () => {
      const next = argv[++i]
      if (next === undefined) fail(`${arg} needs a value`)
      return next
    }
    if (arg === '--list') options.list = true
    else if (arg === '--only') options.only = value().split(',').filter(Boolean)
    else if (arg === '--package') options.packages = value().split(',').filter(Boolean)
    else if (arg === '--timeout-factor') options.timeoutFactor = Number(value())
    else if (arg === '--skip-baseline') options.baseline = false
    else if (arg === '--report') options.report = resolve(process.cwd(), value())
    else if (arg === '--allow-dirty') options.allowDirty = true
    else if (arg === '--quick') options.quick = true
    else if (arg === '--test-timeout') options.testTimeoutMs = Number(value())
    else if (arg === '--help' || arg === '-h') {
      console.log(
        readFileSync(fileURLToPath(import.meta.url), 'utf8')
          .split('\n')
          .slice(1, 14)
          .join('\n'),
      )
      process.exit(0)
    } else fail(`unknown option ${arg} (see --help)`)
  }
  if (!(options.timeoutFactor > 0)) fail('--timeout-factor must be a positive number')
  if (!Number.isSafeInteger(options.testTimeoutMs) || options.testTimeoutMs < 1)
    fail('--test-timeout must be a positive integer (milliseconds)')
  return options
}

function fail(message) {
  console.error(`mutate: ${message}`)
  process.exit(2)
}

// ------------------------------------------------------------------ restoring files, whatever happens

/** The file currently mutated and its original text. */
let applied
/** The test run in progress, killed on interruption. */
let child

function restore() {
  if (applied !== undefined) {
    writeFileSync(join(root, applied.file), applied.original)
    applied = undefined
  }
  rmSync(journalPath, { force: true })
}

function restoreFromJournal() {
  if (!existsSync(journalPath)) return
  const journal = JSON.parse(readFileSync(journalPath, 'utf8'))
  const { file, original } = journal
  if (journalOwnerAlive(journal)) {
    fail(
      `a run (pid ${journal.pid}) has a mutant applied to ${file} now; wait for it to end (if that process is not pnpm mutate, delete ${relative(process.cwd(), journalPath)} after restoring the file with git)`,
    )
  }
  writeFileSync(join(root, file), original)
  rmSync(journalPath, { force: true })
  console.log(`mutate: restored ${file} from the journal of an interrupted run`)
}

function killChild() {
  if (child?.exitCode === null) {
    try {
      process.kill(-child.pid, 'SIGKILL')
    } catch {
      // already gone
    }
  }
}

for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => {
    killChild()
    restore()
    console.error(`\nmutate: interrupted (${signal}); sources restored`)
    process.exit(130)
  })
}
process.on('uncaughtException', (error) => {
  killChild()
  restore()
  console.error(error)
  process.exit(1)
})

function applyToFile(mutant) {
  const path = join(root, mutant.file)
  const original = readFileSync(path, 'utf8')
  mkdirSync(workDir, { recursive: true })
  writeFileSync(journalPath, JSON.stringify({ file: mutant.file, original, pid: process.pid }))
  applied = { file: mutant.file, original }
  writeFileSync(path, applyMutant(original, mutant))
}

// ------------------------------------------------------------------ running one package's tests

/**
 * Runs `pkg`'s tests (only `files` when given; never `exclude`); resolves with how they ended, the
 * failed test that killed a mutant, and the time.
 */
function runTests(pkg, timeoutMs, logName, { files = [], exclude = [] } = {}) {
  const jsonPath = join(workDir, 'vitest', `${logName}.json`)
  const logPath = join(workDir, 'logs', `${logName}.log`)
  mkdirSync(dirname(jsonPath), { recursive: true })
  mkdirSync(dirname(logPath), { recursive: true })
  rmSync(jsonPath, { force: true })
  const args = [
    vitestBin,
    'run',
    '--project',
    pkg,
    '--bail=1',
    `--testTimeout=${options.testTimeoutMs}`,
    `--hookTimeout=${options.testTimeoutMs}`,
    '--reporter=dot',
    '--reporter=json',
    `--outputFile.json=${jsonPath}`,
    ...exclude.flatMap((file) => ['--exclude', `**/${file}`]),
    ...files,
  ]
  const started = Date.now()
  return new Promise((resolve) => {
    let output = ''
    child = spawn(process.execPath, args, {
      cwd: root,
      env: { ...process.env, DSH_SKIP_TYPE_TESTS: '1', FORCE_COLOR: '0' },
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    child.stdout.on('data', (chunk) => (output += chunk))
    child.stderr.on('data', (chunk) => (output += chunk))
    let timedOut = false
    const timer = setTimeout(() => {
      timedOut = true
      killChild()
    }, timeoutMs)
    child.on('close', (code) => {
      clearTimeout(timer)
      child = undefined
      writeFileSync(logPath, output)
      const ms = Date.now() - started
      if (timedOut) resolve({ status: 'timed-out', ms, killedBy: undefined })
      else if (code === 0) resolve({ status: 'passed', ms, killedBy: undefined })
      else resolve({ status: 'failed', ms, killedBy: firstFailure(jsonPath, output) })
    })
  })
}

/** The first failed test (file › title) from vitest's JSON report, else a line of its output. */
function firstFailure(jsonPath, output) {
  try {
    const report = JSON.parse(readFileSync(jsonPath, 'utf8'))
    for (const file of report.testResults ?? []) {
      const test = (file.assertionResults ?? []).find((t) => t.status === 'failed')
      if (test !== undefined) return `${relative(root, file.name)} › ${test.fullName ?? test.title}`
    }
    for (const file of report.testResults ?? []) {
      if (file.status === 'failed') return `${relative(root, file.name)}: ${firstLine(file.message)}`
    }
  } catch {
    // no report: vitest itself failed (an unhandled error, a crash)
  }
  const line = output.split('\n').find((l) => /Error|FAIL|Unhandled/.test(l))
  return line === undefined ? 'the run failed (see its log)' : line.trim().slice(0, 160)
}

function firstLine(text) {
  return String(text ?? '')
    .split('\n')[0]
    .slice(0, 160)
}

// ------------------------------------------------------------------ main

const options = parseArgs(process.argv.slice(2))
const problems = [...checkMutants(mutants, root), ...checkFirstTests(firstTests, root)]
restoreFromJournal()
if (problems.length > 0) fail(`the mutant list is invalid:\n  ${problems.join('\n  ')}`)

let selected = mutants
if (options.only !== undefined) {
  const unknown = options.only.filter((id) => !mutants.some((m) => m.id === id))
  if (unknown.length > 0) fail(`unknown mutant id(s): ${unknown.join(', ')}`)
  selected = selected.filter((m) => options.only.includes(m.id))
}
if (options.packages !== undefined) selected = selected.filter((m) => options.packages.includes(m.package))

if (options.list) {
  for (const m of selected)
    console.log(`${m.id.padEnd(44)} ${m.package.padEnd(10)} ${m.kind.padEnd(34)} ${m.description}`)
  console.log(`${selected.length} mutants`)
  process.exit(0)
}
if (selected.length === 0) fail('no mutant selected')

const files = [...new Set(selected.map((m) => m.file))]
if (!options.allowDirty) {
  const dirty = execFileSync('git', ['status', '--porcelain', '--', ...files], {
    cwd: root,
    encoding: 'utf8',
  })
  if (dirty.trim() !== '')
    fail(`uncommitted changes in files to mutate (commit them, or pass --allow-dirty):\n${dirty}`)
}

const packages = [...new Set(selected.map((m) => m.package))]
// Without a server the store's tests skip, and every mutant would seem to survive.
if (packages.includes('session-postgres') && !process.env.DSH_TEST_POSTGRES_URL)
  fail(
    'the session-postgres mutants need a PostgreSQL server: run node scripts/with-postgres.mjs -- pnpm mutate …',
  )
if (packages.includes('session-postgres')) process.env.DSH_REQUIRE_POSTGRES ??= '1'
const startedAt = Date.now()
const timeouts = new Map()
for (const pkg of packages) {
  if (!options.baseline) {
    timeouts.set(pkg, Math.max(options.minTimeoutMs, 300_000))
    continue
  }
  process.stdout.write(`baseline: ${pkg} … `)
  const base = await runTests(pkg, 30 * 60_000, `baseline-${pkg}`)
  console.log(`${base.status} in ${(base.ms / 1000).toFixed(0)} s`)
  if (base.status !== 'passed')
    fail(`the ${pkg} tests fail without any mutant (see .mutate/logs/baseline-${pkg}.log)`)
  timeouts.set(pkg, Math.max(options.minTimeoutMs, Math.round(base.ms * options.timeoutFactor)))
}

const results = []
for (const [n, mutant] of selected.entries()) {
  const prefix = `[${String(n + 1).padStart(3)}/${selected.length}] ${mutant.id}`
  process.stdout.write(`${prefix} … `)
  let outcome
  let quickSurvivor = false
  const first = firstTestsOf(mutant)
  const limit = timeouts.get(mutant.package)
  try {
    applyToFile(mutant)
    if (first.length > 0) {
      outcome = await runTests(mutant.package, limit, `${mutant.id}-first`, { files: first })
      if (outcome.status === 'passed') {
        if (options.quick) quickSurvivor = true
        else {
          const rest = await runTests(mutant.package, limit, mutant.id, { exclude: first })
          outcome = { ...rest, ms: outcome.ms + rest.ms }
        }
      }
    } else {
      outcome = await runTests(mutant.package, limit, mutant.id)
    }
  } finally {
    restore()
  }
  const status =
    outcome.status === 'failed' ? 'killed' : outcome.status === 'passed' ? 'survived' : 'timed-out'
  const note = quickSurvivor
    ? '  (first tier only: --quick)'
    : outcome.killedBy
      ? `  ${outcome.killedBy}`
      : ''
  console.log(`${status} (${(outcome.ms / 1000).toFixed(0)} s)${note}`)
  results.push({
    id: mutant.id,
    package: mutant.package,
    file: mutant.file,
    kind: mutant.kind,
    description: mutant.description,
    attacks: mutant.attacks,
    status,
    ...(quickSurvivor ? { firstTierOnly: true } : {}),
    seconds: Math.round(outcome.ms / 100) / 10,
    ...(outcome.killedBy === undefined ? {} : { killedBy: outcome.killedBy }),
    ...(mutant.equivalent === undefined ? {} : { equivalent: mutant.equivalent }),
  })
}

const count = (status) => results.filter((r) => r.status === status).length
const killed = count('killed')
const timedOut = count('timed-out')
const survivors = results.filter((r) => r.status === 'survived')
const equivalent = survivors.filter((r) => r.equivalent !== undefined)
const scored = results.length - equivalent.length
const score = scored === 0 ? 100 : (100 * (killed + timedOut)) / scored
const totalSeconds = Math.round((Date.now() - startedAt) / 1000)

console.log('\nstatus     package     mutant')
for (const r of results) console.log(`${r.status.padEnd(10)} ${r.package.padEnd(11)} ${r.id}`)
console.log(
  `\n${results.length} mutants: ${killed} killed, ${timedOut} timed out, ${survivors.length} survived` +
    ` (${equivalent.length} marked equivalent). Score ${score.toFixed(1)} % ` +
    `((killed + timed out) / (mutants - equivalent)), in ${Math.floor(totalSeconds / 60)} min ${totalSeconds % 60} s.`,
)
for (const r of survivors) {
  console.log(`  survived: ${r.id} — ${r.description}${r.equivalent ? ` [equivalent: ${r.equivalent}]` : ''}`)
}
mkdirSync(dirname(options.report), { recursive: true })
writeFileSync(
  options.report,
  `${JSON.stringify(
    {
      date: new Date().toISOString(),
      mutants: results.length,
      killed,
      timedOut,
      survived: survivors.length,
      equivalent: equivalent.length,
      score: Math.round(score * 10) / 10,
      seconds: totalSeconds,
      results,
    },
    null,
    2,
  )}\n`,
)
console.log(`report: ${relative(process.cwd(), options.report)}`)
process.exit(survivors.length > equivalent.length ? 1 : 0)
