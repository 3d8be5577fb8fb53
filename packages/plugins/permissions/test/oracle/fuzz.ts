import { parseArgs } from 'node:util'
import { startBashOracle } from './bash-oracle.ts'
import { startParseOracle } from './parse-oracle.ts'
import { runOracles } from './run-oracles.ts'

// `pnpm fuzz:permissions [--runs 100000] [--seed N] [--batch 500]`: generated command lines
// against the execution oracle (real bash, logging stubs) and the parse oracle (tree-sitter-bash).
// Not part of CI's time budget; the package tests run the same check with 2,000 commands.
const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '100000' },
    seed: { type: 'string', default: String(Date.now() % 2 ** 31) },
    batch: { type: 'string', default: '500' },
  },
})
const runs = Number(values.runs)
const seed = Number(values.seed)
const bash = startBashOracle({ niceness: 0 })
try {
  const parser = await startParseOracle()
  console.log(`fuzz:permissions: ${runs} commands, seed ${seed}`)
  const report = await runOracles({
    bash,
    parser,
    runs,
    seed,
    batch: Number(values.batch),
    minimizeMisses: true,
    progress: (done) => process.stdout.write(`\r  ${done}/${runs}`),
    onMiss: (miss) => process.stdout.write(`\nFOUND ${JSON.stringify(miss)}\n`),
  })
  process.stdout.write('\n')
  for (const miss of report.misses) console.log('MISS', JSON.stringify(miss))
  for (const command of report.timedOut)
    console.log('timed out (an endless loop; what it ran was checked):', JSON.stringify(command))
  console.log(
    JSON.stringify({
      commands: report.executed,
      bashRuns: report.executed + Math.floor(runs - Math.floor(runs / 4)),
      parsed: report.parsed,
      misses: report.misses.length,
      unreadable: report.unreadable,
      timedOut: report.timedOut.length,
      seconds: Math.round(report.milliseconds / 1000),
    }),
  )
  process.exitCode = report.misses.length > 0 ? 1 : 0
} finally {
  bash.close()
}
