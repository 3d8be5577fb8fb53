// Install and build the workspace only when something they read changed since the last time they
// ran from here: `npm start` (scripts/start.mjs) and `npm run pack:local` (scripts/pack-local.mjs)
// call `ensureBuilt()`. Node built-ins only, so it runs before `pnpm install`.
//
// The stamp (node_modules/.dsh-build-stamp.json) holds two content hashes, written after each step
// succeeds: the install's (lockfile, workspace file, every package.json, the Node version) and the
// build's (the install's plus every file a build reads: each workspace package's `src/`,
// `package.json`, `tsup.config.ts` and `tsconfig*.json`, and the root build configuration), and a
// fingerprint of what each step left. A step runs when its hash differs from the stamp or its
// output is missing or changed; each hash is computed before its step starts, so a file edited
// during a build makes the next start build again.
import { spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import {
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  realpathSync,
  statSync,
  writeFileSync,
} from 'node:fs'
import { dirname, join, relative, sep } from 'node:path'
import { fileURLToPath } from 'node:url'

export const repo = join(dirname(fileURLToPath(import.meta.url)), '..')
const STAMP_NAME = '.dsh-build-stamp.json'
export const STAMP = join(repo, 'node_modules', STAMP_NAME)
// `pnpm@<version>` (without a `+sha…` suffix): the pnpm that package.json names is the one run
const packageManager = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')).packageManager.split(
  '+',
)[0]
const windows = process.platform === 'win32'

/** Folders that are no workspace package (outputs, caches, tests, benchmarks). */
const SKIPPED = new Set(['node_modules', 'dist', 'test', 'bench', '.cache', '.turbo', 'coverage'])
/** What tsup reads in a package besides `src/` (tsup.shared.ts and tsconfig.base.json are ROOT_INPUTS). */
const PACKAGE_INPUT = /^(package\.json|tsup\.config\.[cm]?[jt]s|tsconfig(\.[\w-]+)?\.json)$/
const ROOT_INPUTS = [
  'package.json',
  'pnpm-lock.yaml',
  'pnpm-workspace.yaml',
  'tsconfig.base.json',
  'tsup.shared.ts',
]

function filesUnder(dir, skipped = SKIPPED) {
  return readdirSync(dir, { withFileTypes: true })
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .flatMap((entry) => {
      if (entry.isDirectory())
        return skipped.has(entry.name) ? [] : filesUnder(join(dir, entry.name), skipped)
      return entry.isFile() ? [join(dir, entry.name)] : []
    })
}

/** The workspace's package folders (the globs of pnpm-workspace.yaml: packages/*, packages/*\/*, examples/*). */
export function workspacePackages(root = repo) {
  const dirs = []
  const visit = (dir, depth) => {
    if (!existsSync(dir)) return
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (!entry.isDirectory() || SKIPPED.has(entry.name)) continue
      const path = join(dir, entry.name)
      if (existsSync(join(path, 'package.json'))) dirs.push(path)
      else if (depth > 0) visit(path, depth - 1)
    }
  }
  visit(join(root, 'packages'), 1)
  visit(join(root, 'examples'), 0)
  if (existsSync(join(root, 'bench', 'package.json'))) dirs.push(join(root, 'bench'))
  return dirs.sort()
}

function hashFiles(root, files) {
  const hash = createHash('sha256')
  for (const file of files) {
    // the path with `/` on every platform, then the contents: a rename changes the hash too
    hash.update(relative(root, file).split(sep).join('/'))
    hash.update('\0')
    hash.update(readFileSync(file))
    hash.update('\0')
  }
  return hash.digest('hex')
}

/** The two content hashes of the workspace at `root` (exported for the tests). */
export function contentHashes(root = repo) {
  const packages = workspacePackages(root)
  const installFiles = [
    ...['package.json', 'pnpm-lock.yaml', 'pnpm-workspace.yaml'].map((f) => join(root, f)),
    ...packages.map((dir) => join(dir, 'package.json')),
  ].filter((file) => existsSync(file))
  const install = createHash('sha256')
    .update(`${process.version}\0${hashFiles(root, installFiles)}`)
    .digest('hex')
  const buildFiles = [
    ...ROOT_INPUTS.map((f) => join(root, f)).filter((file) => existsSync(file)),
    ...packages.flatMap((dir) => [
      ...readdirSync(dir)
        .filter((name) => PACKAGE_INPUT.test(name))
        .sort()
        .map((name) => join(dir, name)),
      ...(existsSync(join(dir, 'src')) ? filesUnder(join(dir, 'src')) : []),
    ]),
  ]
  const build = createHash('sha256')
    .update(`${install}\0${hashFiles(root, buildFiles)}`)
    .digest('hex')
  return { install, build }
}

function readStamp(path) {
  try {
    const stamp = JSON.parse(readFileSync(path, 'utf8'))
    return typeof stamp === 'object' && stamp !== null ? stamp : {}
  } catch {
    return {}
  }
}

/** What `pnpm run build` builds: the packages and examples with a build script (not the bench). */
function buildable(root) {
  return workspacePackages(root).filter((dir) => {
    if (relative(root, dir) === 'bench') return false
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'))
    return typeof manifest.scripts?.build === 'string'
  })
}

/**
 * A fingerprint of what a step left, or undefined when it is missing. A stamp counts only while its
 * step's outputs are the ones it left: an install or build run by hand meanwhile (say, on another
 * branch) changes them, and the next start does its step again rather than trust a stale tree.
 * The install's is pnpm's copy of the lockfile it installed; the build's is the path, size and
 * modification time of every file of every `dist/` (a build rewrites each file it emits).
 */
function installedFingerprint(root) {
  const lock = join(root, 'node_modules', '.pnpm', 'lock.yaml')
  if (!existsSync(join(root, 'node_modules', '.modules.yaml')) || !existsSync(lock)) return undefined
  return hashFiles(root, [lock])
}
function builtFingerprint(root) {
  const dists = buildable(root).map((dir) => join(dir, 'dist'))
  if (!dists.every((dist) => existsSync(dist))) return undefined
  const hash = createHash('sha256')
  for (const file of dists.flatMap((dist) => filesUnder(dist, new Set()))) {
    const { size, mtimeMs } = statSync(file)
    hash.update(`${relative(root, file).split(sep).join('/')}\0${size}\0${mtimeMs}\0`)
  }
  return hash.digest('hex')
}

/** `npx -y pnpm@<packageManager>`: no pnpm needs to be installed. */
export const PNPM = [windows ? 'npx.cmd' : 'npx', '-y', packageManager]

/** Runs pnpm quietly in `root`; resolves with its status and output. `onLine` sees each output line. */
function runPnpm({ pnpm, root }, args, onLine) {
  return new Promise((resolve) => {
    const child = spawn(pnpm[0], [...pnpm.slice(1), ...args], {
      cwd: root,
      shell: windows,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, FORCE_COLOR: '0' },
    })
    let output = ''
    let partial = ''
    const take = (chunk) => {
      output += chunk
      const lines = (partial + chunk).split('\n')
      partial = lines.pop() ?? ''
      for (const line of lines) onLine?.(line)
    }
    child.stdout.setEncoding('utf8').on('data', take)
    child.stderr.setEncoding('utf8').on('data', take)
    child.once('error', (error) => resolve({ status: 127, output: `${output}${error.message}\n` }))
    child.once('close', (code, signal) => resolve({ status: code ?? (signal ? 128 : 1), output }))
  })
}

const seconds = (since) => `${((performance.now() - since) / 1000).toFixed(1)} s`

/**
 * Installs and builds the workspace at `root` when needed, printing one line per step to `log`
 * (stderr by default): the step, then its time; on a build, one line per package as it finishes.
 * Throws an `Error` whose `output` is the failed step's full log. Resolves with what it did:
 * `{ installed, built }`. `root` and `pnpm` (the command that runs pnpm) are for the tests.
 */
export async function ensureBuilt({
  who = 'npm start',
  log = (line) => process.stderr.write(`${line}\n`),
  root = repo,
  pnpm = PNPM,
} = {}) {
  const stampFile = join(root, 'node_modules', STAMP_NAME)
  const stamp = readStamp(stampFile)
  const hashes = contentHashes(root)
  const installedNow = installedFingerprint(root)
  const needInstall =
    stamp.install !== hashes.install || installedNow === undefined || stamp.installed !== installedNow
  const builtNow = builtFingerprint(root)
  const needBuild =
    needInstall || stamp.build !== hashes.build || builtNow === undefined || stamp.built !== builtNow
  if (!needBuild) {
    log(`${who}: install and build are up to date (nothing changed since the last build)`)
    return { installed: false, built: false }
  }
  const steps = [needInstall && 'install', 'build'].filter(Boolean)
  let n = 0
  const write = (next) => {
    mkdirSync(dirname(stampFile), { recursive: true })
    writeFileSync(stampFile, `${JSON.stringify(next, null, 2)}\n`)
  }
  if (needInstall) {
    n++
    const since = performance.now()
    log(`${who}: [${n}/${steps.length}] installing dependencies (pnpm install --frozen-lockfile)…`)
    const run = await runPnpm({ pnpm, root }, ['install', '--frozen-lockfile'])
    if (run.status !== 0) throw Object.assign(new Error(`the install step failed (exit ${run.status})`), run)
    log(`${who}: [${n}/${steps.length}] installed in ${seconds(since)}`)
    write({ install: hashes.install, installed: installedFingerprint(root) })
  }
  n++
  const since = performance.now()
  const total = buildable(root).length
  log(`${who}: [${n}/${steps.length}] building ${total} packages (pnpm run build)…`)
  let done = 0
  // pnpm's recursive run ends each package's output with `<path> build: Done`
  const run = await runPnpm({ pnpm, root }, ['run', 'build'], (line) => {
    const finished = /^(\S+) build: Done/.exec(line)
    if (finished) log(`${who}:       built ${finished[1]} (${++done}/${total}, ${seconds(since)})`)
  })
  if (run.status !== 0) throw Object.assign(new Error(`the build step failed (exit ${run.status})`), run)
  log(`${who}: [${n}/${steps.length}] built in ${seconds(since)}`)
  write({
    install: hashes.install,
    installed: installedFingerprint(root),
    build: hashes.build,
    built: builtFingerprint(root),
  })
  return { installed: needInstall, built: true }
}

// As a command (`node scripts/ensure-built.mjs`, the first step of `pnpm check`): install and
// build when needed, then exit.
if (process.argv[1] && realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url))) {
  try {
    await ensureBuilt({ who: process.env.npm_lifecycle_event || 'ensure-built' })
  } catch (error) {
    process.stderr.write(`${error.output ?? ''}\n${error.message}; its full log is above.\n`)
    process.exit(1)
  }
}
