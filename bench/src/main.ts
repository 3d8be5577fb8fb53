import { spawn } from 'node:child_process'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { loadavg } from 'node:os'
import { fileURLToPath } from 'node:url'
import { CASES, selectCases, type CaseDefinition } from './cases/registry.ts'
import { PENDING_CASES } from './cases/pending.ts'
import { describeMachine, peerVersions } from './harness/machine.ts'
import { URL_VARIABLE, startPostgres } from '../../scripts/postgres-server.mjs'
import { FULL_OPTIONS, QUICK_OPTIONS } from './options.ts'
import { analyze } from './report/analyze.ts'
import { checkGoals } from './report/goals.ts'
import { formatReport } from './report/table.ts'
import type { BenchOptions, ProcessReport } from './types.ts'

const USAGE = `usage: pnpm bench [--quick] [--only id-or-prefix,…] [--out file]
       pnpm bench --report results.json   (prints the table of a saved run again, with today's analysis)
cases: ${CASES.map((c) => c.id).join(', ')}`

interface Cli {
  readonly report?: string
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
    } else throw new Error(`Unknown argument "${arg}".\n${USAGE}`)
  }
  return {
    ...(report === undefined ? {} : { report }),
    preset,
    options: preset === 'quick' ? QUICK_OPTIONS : FULL_OPTIONS,
    cases,
    out,
  }
}

/** One case in a fresh `node --expose-gc` process; resolves with the report it sends over IPC. */
function runChild(id: string, options: BenchOptions): Promise<ProcessReport> {
  const child = spawn(
    process.execPath,
    ['--expose-gc', fileURLToPath(new URL('./child.js', import.meta.url)), id, JSON.stringify(options)],
    { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] },
  )
  return new Promise((resolve, reject) => {
    let report: ProcessReport | undefined
    child.on('message', (message) => (report = message as ProcessReport))
    child.on('error', reject)
    child.on('exit', (code, signal) => {
      if (code === 0 && report !== undefined) resolve(report)
      else reject(new Error(`case "${id}" exited with ${signal ?? `code ${code}`} and no report`))
    })
  })
}

/** The bench measures the packages as users get them: from their built dist/, never their sources. */
function requireBuiltPackages(): void {
  for (const name of ['llm', 'llm-openai', 'context', 'session', 'session-postgres', 'tools', 'agent-loop']) {
    const entry = new URL(`../node_modules/@deepseek-ai/dsh-${name}/dist/index.js`, import.meta.url)
    if (!existsSync(entry)) {
      throw new Error(
        `@deepseek-ai/dsh-${name} is not built (${fileURLToPath(entry)}); run \`pnpm build\` first`,
      )
    }
  }
}

const loads = (values: readonly number[]) => values.map((l) => l.toFixed(2)).join(' ')

/** Prints the table of a saved results.json again (its processes analyzed by this version). */
function printSaved(path: string): void {
  const saved = JSON.parse(readFileSync(path, 'utf8')) as {
    machine: { date: string; loadavgStart: number[]; loadavgEnd: number[] }
    processes: ProcessReport[]
  }
  const rows = analyze(saved.processes)
  process.stdout.write(`${formatReport(rows, checkGoals(rows), PENDING_CASES)}\n\n`)
  process.stdout.write(
    `run of ${saved.machine.date}; load average ${loads(saved.machine.loadavgStart)} at start, ` +
      `${loads(saved.machine.loadavgEnd)} at end\n`,
  )
}

async function main(): Promise<void> {
  const cli = parseCli(process.argv.slice(2))
  if (cli.report !== undefined) return printSaved(cli.report)
  requireBuiltPackages()
  const machine = describeMachine()
  const start = performance.now()
  process.stderr.write(
    `dsh bench (${cli.preset}): ${cli.cases.length} processes on ${machine.cpuModel} ×${machine.cores}, ` +
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
  try {
    for (const [i, definition] of cli.cases.entries()) {
      process.stderr.write(`[${i + 1}/${cli.cases.length}] ${definition.id}\n`)
      reports.push(await runChild(definition.id, cli.options))
    }
  } finally {
    await server?.stop()
  }
  const rows = analyze(reports)
  const goals = checkGoals(rows)
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
  }
  writeFileSync(cli.out, `${JSON.stringify(results, null, 2)}\n`)
  process.stdout.write(`\n${formatReport(rows, goals, PENDING_CASES)}\n\n`)
  process.stdout.write(
    `load average ${loads(machine.loadavgStart)} at start, ${loads(loadavgEnd)} at end; ` +
      `${(durationMs / 1000).toFixed(0)} s; written to ${cli.out}\n`,
  )
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? error.message : String(error)}\n`)
  process.exitCode = 1
})
