// What .ci/run runs: the path of a newcomer with only Node and npm, in a fresh clone of this
// checkout's HEAD, on a PATH that holds Node, npm and the base system only (no pnpm, nothing from
// /usr/local). Each step is timed; a summary table ends the run.
//
// 1. `npm start` cold (installs, builds, plays the demo), then again warm (must skip both), and
//    `npm start -- --help` warm: the README's first command.
// 2. The README's install block, run as written from a scratch project next to the clone, once with
//    npm and once with pnpm (`npm install zod` becomes `pnpm add zod`), then the README's taste.
// 3. `npm run ci`: the README's test command (every check).
// 4. On each Node version of scripts/tested-node.mjs (from the npm registry, cached): the part of
//    the packed-artifact check that can differ between Node versions (`--runtime-only`: install,
//    ESM and CommonJS smoke scripts, the code runtime) and the tests of the core packages.
//
//   node scripts/newcomer-ci.mjs [--keep]     (--keep leaves the temp folder for a look)
import { spawn } from 'node:child_process'
import {
  accessSync,
  constants,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { delimiter, dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { inspect } from 'node:util'
import { fetchNode } from './fetch-node.mjs'
import { readmeTaste, writeTaste } from './packed-readme-install.mjs'
import { TESTED_NODE_VERSIONS, testedProjectsOf } from './tested-node.mjs'

const repo = join(dirname(fileURLToPath(import.meta.url)), '..')
const packageManager = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')).packageManager.split(
  '+',
)[0]
const keep = process.argv.includes('--keep')
const started = performance.now()
const say = (line) =>
  process.stderr.write(`[newcomer ${((performance.now() - started) / 1000).toFixed(0)}s] ${line}\n`)
const timings = []
const failures = []

function which(name, path) {
  for (const dir of path.split(delimiter).filter(Boolean)) {
    try {
      accessSync(join(dir, name), constants.X_OK)
      return join(dir, name)
    } catch {
      // not here
    }
  }
  return undefined
}

/**
 * Runs a command (output shown as it comes, and kept); resolves with its status, output and
 * seconds. `label` names it in the summary; `expect(output)` returns a problem or undefined.
 */
function step(label, command, args, { cwd, env, expect } = {}) {
  say(`${label}: ${[command, ...args].join(' ')}`)
  const since = performance.now()
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] })
    let output = ''
    const take = (stream) => (chunk) => {
      output += chunk
      stream.write(chunk)
    }
    child.stdout.on('data', take(process.stdout))
    child.stderr.on('data', take(process.stderr))
    child.once('error', (error) => {
      output += String(error)
    })
    child.once('close', (code, signal) => {
      const seconds = (performance.now() - since) / 1000
      const status = code ?? (signal ? 128 : 1)
      const problem = status !== 0 ? `exit ${status}` : expect?.(output)
      timings.push({ label, seconds, ok: problem === undefined })
      if (problem !== undefined) failures.push(`${label}: ${problem}`)
      say(`${label}: ${problem === undefined ? 'ok' : `FAILED (${problem})`} in ${seconds.toFixed(1)} s`)
      resolve({ status, output, seconds })
    })
  })
}

async function main() {
  const work = mkdtempSync(join(tmpdir(), 'dsh-newcomer-'))
  try {
    // A PATH with Node and npm and the base system: whatever else the README's commands need, they
    // must bring themselves (pnpm through npx, the test servers through npm run ci).
    const bin = join(work, 'bin')
    mkdirSync(bin)
    for (const tool of ['node', 'npm', 'npx']) {
      const found = which(tool, process.env.PATH ?? '')
      if (found === undefined) throw new Error(`${tool} is not on PATH`)
      symlinkSync(found, join(bin, tool))
    }
    const PATH = [bin, '/usr/sbin', '/usr/bin', '/sbin', '/bin'].join(delimiter)
    for (const tool of ['pnpm', 'corepack-pnpm', 'tsc', 'vitest']) {
      const found = which(tool, PATH)
      if (found !== undefined)
        failures.push(`the newcomer PATH has ${tool} (${found}); it must hold only Node and npm`)
    }
    const env = Object.fromEntries(
      Object.entries({ ...process.env, PATH, DSH_DEMO_SLOW_MS: '20', DSH_DEMO_THINK_MS: '0' }).filter(
        ([name]) => !/^(npm_|NODE_PATH$|PNPM_)/i.test(name),
      ),
    )
    const clone = join(work, 'dsh')
    await step('fresh clone', 'git', ['clone', '--quiet', '--no-hardlinks', repo, clone], { env })

    // 1. the README's first command, cold and warm
    await step('npm start (cold)', 'npm', ['start', '--', '--no-tty', '--yes'], {
      cwd: clone,
      env,
      expect: (out) =>
        /\[1\/2\] installing/.test(out) && /built in/.test(out)
          ? undefined
          : 'no install and build progress lines',
    })
    for (const [label, args] of [
      ['npm start (warm)', ['start', '--', '--no-tty', '--yes']],
      ['npm start -- --help (warm)', ['start', '--', '--help']],
    ]) {
      await step(label, 'npm', args, {
        cwd: clone,
        env,
        expect: (out) =>
          out.includes('install and build are up to date') ? undefined : 'it installed or built again',
      })
    }

    // 2. the README's install block, as written, from a scratch project next to the clone
    const readme = readFileSync(join(clone, 'README.md'), 'utf8')
    const block = /^## Install\n[\s\S]*?^```sh\n([\s\S]*?)^```$/m.exec(readme)?.[1]
    if (block === undefined) failures.push('README.md: no ```sh block under "## Install"')
    const taste = readmeTaste(readme)
    for (const manager of block === undefined ? [] : ['npm', 'pnpm']) {
      const root = join(work, `readme-${manager}`)
      mkdirSync(join(root, 'my-app'), { recursive: true })
      symlinkSync(clone, join(root, 'dsh'))
      writeFileSync(
        join(root, 'my-app/package.json'),
        '{ "name": "my-app", "private": true, "type": "module" }\n',
      )
      // the clone is there already (git clone from the network is the one line not run)
      let script = block.replace(/^git clone .*$/m, '')
      if (manager === 'pnpm') script = script.replace(/^npm install zod.*$/m, 'pnpm add zod')
      await step(
        `README install (${manager})`,
        'bash',
        ['-euo', 'pipefail', '-c', `pnpm() { npx -y ${packageManager} "$@"; }\n${script}`],
        {
          cwd: root,
          env,
        },
      )
      writeTaste(join(root, 'my-app'), taste)
      await step(`README taste (${manager})`, 'node', ['print.mjs'], {
        cwd: join(root, 'my-app'),
        env,
        expect: (out) =>
          inspect(out.trimEnd().split('\n')) === inspect(taste.expected) ? undefined : `printed ${out}`,
      })
    }

    // 3. the README's test command
    // the README install block ran above, as written: the packed check need not run it again
    await step('npm run ci', 'npm', ['run', 'ci'], {
      cwd: clone,
      env: { ...env, DSH_README_INSTALL_CHECKED: '1' },
    })

    // 4. the Node versions users run
    for (const version of TESTED_NODE_VERSIONS) {
      let nodeBin
      const since = performance.now()
      try {
        nodeBin = fetchNode(version, { log: say })
        timings.push({
          label: `fetch node ${version}`,
          seconds: (performance.now() - since) / 1000,
          ok: true,
        })
      } catch (error) {
        failures.push(`node ${version}: ${error instanceof Error ? error.message : String(error)}`)
        continue
      }
      const nodeEnv = { ...env, PATH: `${nodeBin}${delimiter}${PATH}` }
      const onVersion = (out) =>
        out.includes(`on Node v${version}`) ? undefined : `did not run on Node v${version}`
      await step(
        `node ${version}: packed-artifact check (runtime only)`,
        'npx',
        ['-y', packageManager, 'run', 'check:packed', '--runtime-only'],
        {
          cwd: clone,
          env: nodeEnv,
          expect: onVersion,
        },
      )
      // vitest and its workers run on the first node on PATH, as this check shows
      await step(`node ${version}: the node on PATH`, 'node', ['--version'], {
        env: nodeEnv,
        expect: (out) => (out.trim() === `v${version}` ? undefined : `node --version printed ${out.trim()}`),
      })
      await step(
        `node ${version}: core tests`,
        'npx',
        [
          '-y',
          packageManager,
          'exec',
          'vitest',
          'run',
          ...testedProjectsOf(version).flatMap((p) => ['--project', p]),
        ],
        // type tests are tsc's, the same on every Node: run once, by npm run ci
        { cwd: clone, env: { ...nodeEnv, DSH_SKIP_TYPE_TESTS: '1' } },
      )
    }
  } catch (error) {
    failures.push(error instanceof Error ? error.message : String(error))
  } finally {
    if (keep) say(`kept ${work}`)
    else rmSync(work, { recursive: true, force: true })
  }
  const width = Math.max(...timings.map((t) => t.label.length))
  process.stderr.write(`\nnewcomer path (${((performance.now() - started) / 1000).toFixed(0)} s in all):\n`)
  for (const t of timings) {
    process.stderr.write(
      `  ${t.label.padEnd(width)}  ${t.seconds.toFixed(1).padStart(6)} s  ${t.ok ? 'ok' : 'FAILED'}\n`,
    )
  }
  if (failures.length > 0) {
    process.stderr.write(`\nfailed:\n- ${failures.join('\n- ')}\n`)
    process.exit(1)
  }
}

await main()
