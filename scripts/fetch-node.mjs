// A Node binary of another version, from the npm registry (`node-<platform>-<arch>@<version>`, the
// official binary as a package: nothing is downloaded from anywhere else), installed once into a
// cache folder and reused:
//
//   node scripts/fetch-node.mjs 24.22.3   → prints the folder holding that `node` (put it first on PATH)
//
// The cache is $DSH_NODE_CACHE, else $XDG_CACHE_HOME/dsh/node, else ~/.cache/dsh/node; npm's own
// cache serves the package again after the folder is gone.
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

export function nodeCacheDir(env = process.env) {
  if (env.DSH_NODE_CACHE) return env.DSH_NODE_CACHE
  return join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'dsh', 'node')
}

/** The folder holding `node` of exactly `version` (e.g. `24.22.3`), installed if it is not cached. */
export function fetchNode(version, { log = () => {} } = {}) {
  if (!/^\d+\.\d+\.\d+$/.test(version))
    throw new Error(`fetch-node: a version is x.y.z, got ${JSON.stringify(version)}`)
  const name = `node-${process.platform}-${process.arch}`
  const dir = join(nodeCacheDir(), `${name}-${version}`)
  const bin = join(dir, 'node_modules', name, 'bin')
  const works = () => {
    try {
      return execFileSync(join(bin, 'node'), ['--version'], { encoding: 'utf8' }).trim() === `v${version}`
    } catch {
      return false
    }
  }
  if (existsSync(join(bin, 'node')) && works()) return bin
  rmSync(dir, { recursive: true, force: true })
  mkdirSync(dir, { recursive: true })
  writeFileSync(join(dir, 'package.json'), '{"private":true}\n')
  log(`fetch-node: installing ${name}@${version} from the npm registry into ${dir}`)
  execFileSync(
    process.platform === 'win32' ? 'npm.cmd' : 'npm',
    [
      'install',
      '--no-audit',
      '--no-fund',
      '--prefer-offline',
      '--loglevel=error',
      '--save-exact',
      `${name}@${version}`,
    ],
    { cwd: dir, stdio: ['ignore', 'ignore', 'inherit'] },
  )
  if (!works()) throw new Error(`fetch-node: ${join(bin, 'node')} does not run as v${version}`)
  return bin
}

if (process.argv[1] && realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url))) {
  const [version] = process.argv.slice(2)
  try {
    console.log(fetchNode(version ?? '', { log: (line) => console.error(line) }))
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error))
    process.exit(1)
  }
}
