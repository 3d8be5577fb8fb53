// `prepack` of every package: `pnpm pack` / `pnpm publish` must never ship a missing or stale build.
// Rebuilds the package (and the workspace packages it depends on, whose declarations its build
// reads) when dist/ is missing or older than anything it is built from; otherwise does nothing, so
// packing right after `pnpm build` costs no second build.
import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'

const packageDir = process.cwd()
const repo = join(packageDir, '../../..')
const { name } = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8'))

function filesUnder(dir) {
  if (!existsSync(dir)) return []
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesUnder(join(dir, entry.name)) : [join(dir, entry.name)],
  )
}

const inputs = [
  ...filesUnder(join(packageDir, 'src')),
  join(packageDir, 'package.json'),
  join(packageDir, 'tsup.config.ts'),
  join(packageDir, 'tsconfig.build.json'),
  join(repo, 'tsup.shared.ts'),
  join(repo, 'tsconfig.base.json'),
]
const outputs = filesUnder(join(packageDir, 'dist'))
const newestInput = Math.max(...inputs.map((file) => statSync(file).mtimeMs))
const oldestOutput = outputs.length === 0 ? 0 : Math.min(...outputs.map((file) => statSync(file).mtimeMs))

if (outputs.length === 0 || oldestOutput < newestInput) {
  console.error(`prepack: ${name} has no fresh build; building it (and its workspace dependencies)`)
  execFileSync('pnpm', ['--filter', `${name}...`, 'run', 'build'], { cwd: repo, stdio: 'inherit' })
}
