// `npm start`: install and build when something changed since the last build (a content-hash stamp,
// scripts/ensure-built.mjs), with one progress line per step and the step's log shown only if it
// fails; then run the demo. A second start with nothing changed goes straight to the demo.
// Arguments after `--` go to the demo (`npm start -- --yes`, `npm start -- --resume FILE`).
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { ensureBuilt, repo } from './ensure-built.mjs'

try {
  await ensureBuilt({ who: 'npm start' })
} catch (error) {
  process.stderr.write(`${error.output ?? ''}\nnpm start: ${error.message}; its full log is above.\n`)
  process.exit(typeof error.status === 'number' && error.status !== 0 ? error.status : 1)
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
