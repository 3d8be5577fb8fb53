#!/usr/bin/env node
// The demo harness: `npm start` (scripts/start.mjs builds the packages, then runs this file).
import { existsSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { runDemo } from './run/run-demo.ts'

const file = fileURLToPath(import.meta.url)

/** The repository this file lives in: the nearest folder up with the workspace file. */
function findRepository(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'pnpm-workspace.yaml'))) return dir
    if (dirname(dir) === dir) throw new Error(`the demo must run inside the dsh repository (from ${from})`)
  }
}

const code = await runDemo({
  argv: process.argv.slice(2),
  env: process.env,
  cwd: process.cwd(),
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
  docs: join(findRepository(dirname(file)), 'docs'),
  command:
    process.env['npm_lifecycle_event'] === 'start' ? 'npm start --' : `node ${relative(process.cwd(), file)}`,
  exit: (status) => process.exit(status),
})
process.exitCode = code
