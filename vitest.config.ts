import { availableParallelism } from 'node:os'
import { defineConfig } from 'vitest/config'
import { projects } from './vitest.workspace.ts'

export default defineConfig({
  test: {
    projects,
    // vitest's default is one worker less than the cores: one test file at a time on the 2-core CI
    // machines, which leaves a core idle, since most files here wait on child processes, servers
    // and timers. Two at least (the whole suite, 270 files, took 412 s with two on this machine).
    maxWorkers: Math.max(2, availableParallelism() - 1),
  },
})
