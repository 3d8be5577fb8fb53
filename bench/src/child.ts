import type { BenchOptions } from './types.ts'
import { findCase, runCaseInProcess } from './cases/registry.ts'

// One case per process (started by main.ts with --expose-gc), with its own floors: the JIT and heap
// state left by one library or case never colours another's figures. The report goes back over IPC.
const [id = '', optionsJson = '{}'] = process.argv.slice(2)
const options = JSON.parse(optionsJson) as BenchOptions
const log = (line: string) => process.stderr.write(`  ${line}\n`)

try {
  const report = await runCaseInProcess(findCase(id), options, log)
  if (process.send === undefined) throw new Error('child.js must be started by main.js (no IPC channel)')
  process.send(report, () => process.exit(0))
} catch (error) {
  process.stderr.write(
    `  ${id} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  )
  process.exit(1)
}
