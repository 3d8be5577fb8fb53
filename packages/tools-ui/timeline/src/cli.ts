#!/usr/bin/env node
import { runTimelineCli } from './cli/run-timeline-cli.ts'

// Set, not `process.exit`: standard output is flushed before the process ends.
process.exitCode = runTimelineCli(process.argv.slice(2), {
  stdout: (text) => void process.stdout.write(text),
  stderr: (text) => void process.stderr.write(text),
})
