import { execFileSync, spawn } from 'node:child_process'
import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { loadavg } from 'node:os'
import { fileURLToPath } from 'node:url'
import { CASES, selectCases, type CaseDefinition } from './cases/registry.ts'
import { PENDING_CASES } from './cases/pending.ts'
import { buildProblem } from './harness/built-packages.ts'
import { describeMachine, peerVersions } from './harness/machine.ts'
import { URL_VARIABLE, startPostgres } from '../../scripts/postgres-server.mjs'
import { FULL_OPTIONS, QUICK_OPTIONS } from './options.ts'
import { analyze } from './report/analyze.ts'
import { checkGoals } from './report/goals.ts'
import { formatComparison } from './report/compare.ts'
import { formatReport } from './report/table.ts'
import type { BenchOptions, ProcessReport } from './types.ts'

const USAGE = `usage: pnpm bench [--quick] [--only id-or-prefix,…] [--out file] [--baseline checkout]
       pnpm bench --report results.json   (prints the table of a saved run again, with today's analysis)
  --baseline dir: also runs every case against the built packages of another checkout of this
                  repository (e.g. \`git worktree add\` of main, then pnpm install and pnpm build
                  there), each case's two processes back to back, and prints before/after
cases: ${CASES.map((c) => c.id).join(', ')}`

interface Cli {
  readonly report?: string
  readonly baseline?: string
  readonly preset: 'full' | 'quick'
  readonly options: BenchOptions
  readonly cases: readonly CaseDefinition[]
  readonly out: string
}

function parseCli(argv: readonly string[]): Cli {
  let preset: Cli['preset'] = 'full'
  let cases: readonly CaseDefinition[] = CASES
  let out = fileURLToPath(new URL('../results.json', import.meta.url))
  let report: string | undefined
  let baseline: string | undefined
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]
    const value = argv[i + 1]
    if (arg === '--') continue
    if (arg === '--help') {
      process.stdout.write(`${USAGE}\n`)
      process.exit(0)
    }
    if (arg === '--quick') preset = 'quick'
    else if (arg === '--only' && value !== undefined) {
      cases = [...new Set(value.split(',').flatMap(selectCases))]
      i += 1
    } else if (arg === '--report' && value !== undefined) {
      report = value
      i += 1
    } else if (arg === '--out' && value !== undefined) {
      out = value
      i += 1
    } else if (arg === '--baseline' && value !== undefined) {
      baseline = resolve(value)
      i += 1
    } else throw new Error(`Unknown argument "${arg}".\n${USAGE}`)
  }
  return {
    ...(report === undefined ? {} : { report }),
    ...(baseline === undefined ? {} : { baseline }),
    preset,
    options: preset === 'quick' ? QUICK_OPTIONS : FULL_OPTIONS,
    cases,
    out,
  }
}

const OWN_CHILD = fileURLToPath(new URL('./child.js', import.meta.url))

/**
 * One case in a fresh `node --expose-gc` process; resolves with the report it sends over IPC.
 * `child` is this bench's child.js, or its copy inside a baseline checkout (which resolves the
 * packages, hence the code measured, from there).
 */
function runChild(id: string, options: BenchOptions, child = OWN_CHILD): Promise<ProcessReport> {
  const running = spawn(process.execPath, ['--expose-gc', child, id, JSON.stringify(options)], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  })
  return new Promise((resolve, reject) => {
    let report: ProcessReport | undefined
    running.on('message', (message) => (report = message as ProcessReport))
    running.on('error', reject)
    running.on('exit', (code, signal) => {
      if (code === 0 && report !== undefined) resolve(report)
      else reject(new Error(`case "${id}" exited with ${signal ?? `code ${code}`} and no report`))
    })
  })
}

const MEASURED_PACKAGES = ['llm', 'llm-openai', 'context', 'session', 'tools', 'agent-loop']

/** The bench measures the packages as users get them: from their built dist/, never their sources. */
function requireBuiltPackages(
  benchDir: string,
  where: string,
  names: readonly string[] = MEASURED_PACKAGES,
): void {
  for (const name of names) {
    const problem = buildProblem(
      join(benchDir, 'node_modules', '@deepseek-ai', `dsh-${name}`, 'dist', 'index.js'),
    )
    if (problem === undefined) continue
    const what =
      problem.kind === 'missing'
        ? `is not built in ${where} (${problem.entry})`
        : `in ${where} is older than its sources (${problem.newer} changed after ${problem.entry} was built)`
    throw new Error(`@deepseek-ai/dsh-${name} ${what}; run \`pnpm build\` there first`)
  }
}

/**
 * Puts a copy of this bench's built code inside the baseline checkout's bench folder, so that the
 * same cases import that checkout's packages (and peers): only the code measured differs.
 */
function prepareBaseline(checkout: string): { readonly child: string; readonly label: string } {
  const benchDir = join(checkout, 'bench')
  requireBuiltPackages(benchDir, `the baseline checkout ${checkout}`)
  const target = join(benchDir, '.baseline-run', 'dist')
  rmSync(target, { recursive: true, force: true })
  cpSync(fileURLToPath(new URL('.', import.meta.url)), target, { recursive: true })
  let commit = 'unknown commit'
  try {
    commit = execFileSync('git', ['-C', checkout, 'rev-parse', '--short', 'HEAD'], {
      encoding: 'utf8',
    }).trim()
  } catch {
    // a copy without .git (an archive): the path names it
  }
  return { child: join(target, 'child.js'), label: `${checkout} (${commit})` }
}

const loads = (values: readonly number[]) => values.map((l) => l.toFixed(2)).join(' ')

/** Prints the table of a saved results.json again (its processes analyzed by this version). */
function printSaved(path: string): void {
  const saved = JSON.parse(readFileSync(path, 'utf8')) as {
    machine: { date: string; loadavgStart: number[]; loadavgEnd: number[] }
    processes: ProcessReport[]
    baseline?: { checkout: string; processes: ProcessReport[] }
  }
  const rows = analyze(saved.processes)
  const goals = checkGoals(rows)
  process.stdout.write(`${formatReport(rows, goals, PENDING_CASES)}\n\n`)
  if (saved.baseline !== undefined) {
    const before = analyze(saved.baseline.processes)
    const comparison = formatComparison({
      before,
      after: rows,
      beforeGoals: checkGoals(before),
      afterGoals: goals,
      beforeLabel: saved.baseline.checkout,
    })
    process.stdout.write(`${comparison}\n\n`)
  }
  process.stdout.write(
    `run of ${saved.machine.date}; load average ${loads(saved.machine.loadavgStart)} at start, ` +
      `${loads(saved.machine.loadavgEnd)} at end\n`,
  )
}

async function main(): Promise<void> {
  const cli = parseCli(process.argv.slice(2))
  if (cli.report !== undefined) return printSaved(cli.report)
  requireBuiltPackages(fileURLToPath(new URL('..', import.meta.url)), 'this checkout', [
    ...MEASURED_PACKAGES,
    'session-postgres',
  ])
  const baseline = cli.baseline === undefined ? undefined : prepareBaseline(cli.baseline)
  const machine = describeMachine()
  const start = performance.now()
  const processes = cli.cases.length * (baseline === undefined ? 1 : 2)
  process.stderr.write(
    `dsh bench (${cli.preset}): ${processes} processes on ${machine.cpuModel} ×${machine.cores}, ` +
      `Node ${machine.node}, load average ${loads(machine.loadavgStart)}\n`,
  )
  // The PostgreSQL cases need a server: the one DSH_TEST_POSTGRES_URL names, or a throwaway one.
  const needsPostgres = cli.cases.some((c) => c.id.includes('postgres'))
  const server =
    needsPostgres && !process.env[URL_VARIABLE]
      ? await startPostgres({ log: (line) => process.stderr.write(`${line}\n`) })
      : undefined
  if (server !== undefined) process.env[URL_VARIABLE] = server.url
  const reports: ProcessReport[] = []
  const baselineReports: ProcessReport[] = []
  try {
    for (const [i, definition] of cli.cases.entries()) {
      process.stderr.write(`[${i + 1}/${cli.cases.length}] ${definition.id}\n`)
      if (baseline === undefined) {
        reports.push(await runChild(definition.id, cli.options))
        continue
      }
      // Back to back, the order alternating, so neither side always meets the busier moment.
      const runBaseline = async () => {
        try {
          baselineReports.push(await runChild(definition.id, cli.options, baseline.child))
        } catch (error) {
          process.stderr.write(`  baseline: ${error instanceof Error ? error.message : String(error)}\n`)
        }
      }
      if (i % 2 === 0) await runBaseline()
      reports.push(await runChild(definition.id, cli.options))
      if (i % 2 === 1) await runBaseline()
    }
  } finally {
    await server?.stop()
  }
  const rows = analyze(reports)
  const goals = checkGoals(rows)
  const baselineRows = baseline === undefined ? undefined : analyze(baselineReports)
  const baselineGoals = baselineRows === undefined ? undefined : checkGoals(baselineRows)
  const loadavgEnd = loadavg()
  const durationMs = performance.now() - start
  const results = {
    schema: 1,
    machine: { ...machine, loadavgEnd },
    preset: cli.preset,
    options: cli.options,
    peers: peerVersions(['ai', '@openai/agents-core', '@langchain/core', '@langchain/langgraph', 'zod']),
    durationMs,
    processes: reports,
    rows,
    pending: PENDING_CASES,
    goals,
    ...(baseline === undefined
      ? {}
      : {
          baseline: {
            checkout: baseline.label,
            processes: baselineReports,
            rows: baselineRows,
            goals: baselineGoals,
          },
        }),
  }
  writeFileSync(cli.out, `${JSON.stringify(results, null, 2)}\n`)
  process.stdout.write(`\n${formatReport(rows, goals, PENDING_CASES)}\n\n`)
  if (baseline !== undefined && baselineRows !== undefined && baselineGoals !== undefined) {
    process.stdout.write(
      `${formatComparison({ before: baselineRows, after: rows, beforeGoals: baselineGoals, afterGoals: goals, beforeLabel: baseline.label })}\n\n`,
    )
  }
  process.stdout.write(
    `load average ${loads(machine.loadavgStart)} at start, ${loads(loadavgEnd)} at end; ` +
      `${(durationMs / 1000).toFixed(0)} s; written to ${cli.out}\n`,
  )
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? error.message : String(error)}\n`)
  process.exitCode = 1
})
