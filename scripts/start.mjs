// `npm start`: install and build without printing their logs (shown in full if a step fails), then
// run the demo, so the first screen a newcomer sees is the demo itself. Arguments after `--` go to
// the demo (`npm start -- --yes`, `npm start -- --resume FILE`).
import { spawnSync } from 'node:child_process'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const repo = join(dirname(fileURLToPath(import.meta.url)), '..')
const pnpm = ['-y', 'pnpm@10.34.9']
const windows = process.platform === 'win32'
const steps = [
  { label: 'install', args: [...pnpm, 'install', '--frozen-lockfile'] },
  { label: 'build', args: [...pnpm, 'run', 'build'] },
]

process.stderr.write('Installing and building the packages (quietly; the log is shown if a step fails)…\n')
for (const { label, args } of steps) {
  const run = spawnSync(windows ? 'npx.cmd' : 'npx', args, {
    cwd: repo,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    shell: windows,
  })
  if (run.status !== 0) {
    process.stderr.write(`${run.stdout ?? ''}${run.stderr ?? ''}`)
    const why = run.error?.message ?? `exit code ${run.status ?? `signal ${run.signal}`}`
    process.stderr.write(`\nnpm start: the ${label} step failed (${why}); its full log is above.\n`)
    process.exit(run.status || 1)
  }
}
// Ctrl-C reaches the demo too (same process group): it drains its turn and exits on its own, so
// this process waits for it rather than dying first.
process.on('SIGINT', () => {})
const demo = spawnSync(
  process.execPath,
  [join(repo, 'examples/demo/dist/main.js'), ...process.argv.slice(2)],
  {
    cwd: repo,
    stdio: 'inherit',
  },
)
process.exit(demo.status ?? (demo.signal === 'SIGINT' ? 130 : 1))
