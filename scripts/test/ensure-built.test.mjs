import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { contentHashes, ensureBuilt } from '../ensure-built.mjs'

const dirs = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

function write(root, file, text) {
  mkdirSync(join(root, file, '..'), { recursive: true })
  writeFileSync(join(root, file), text)
}

/** A workspace with two buildable packages, an example and the bench, and a pnpm that only pretends. */
function workspace() {
  const root = mkdtempSync(join(tmpdir(), 'dsh-ensure-built-'))
  dirs.push(root)
  write(root, 'package.json', '{"name":"root","private":true,"packageManager":"pnpm@10.34.9"}')
  write(root, 'pnpm-lock.yaml', 'lockfileVersion: 9.0\n')
  write(root, 'pnpm-workspace.yaml', 'packages: [packages/*/*, examples/*, bench]\n')
  write(root, 'tsup.shared.ts', 'export {}\n')
  for (const pkg of ['packages/core/a', 'packages/llm/b', 'examples/demo']) {
    write(root, `${pkg}/package.json`, `{"name":"${pkg}","scripts":{"build":"tsup"}}`)
    write(root, `${pkg}/src/index.ts`, 'export const x = 1\n')
    write(root, `${pkg}/test/x.test.ts`, '// a test\n')
  }
  write(root, 'bench/package.json', '{"name":"bench","scripts":{"build":"tsc"}}')
  // what `npx -y pnpm@…` would be: records its arguments and leaves what install and build leave
  const log = join(root, 'pnpm-calls.txt')
  write(
    root,
    'fake-pnpm.mjs',
    `import { appendFileSync, copyFileSync, mkdirSync, writeFileSync } from 'node:fs'
const args = process.argv.slice(2).join(' ')
appendFileSync(${JSON.stringify(log)}, args + '\\n')
if (args.startsWith('install')) {
  mkdirSync('node_modules/.pnpm', { recursive: true })
  writeFileSync('node_modules/.modules.yaml', '')
  copyFileSync('pnpm-lock.yaml', 'node_modules/.pnpm/lock.yaml')
}
if (args === 'run build') {
  for (const pkg of ['packages/core/a', 'packages/llm/b', 'examples/demo']) {
    mkdirSync(pkg + '/dist', { recursive: true })
    writeFileSync(pkg + '/dist/index.js', 'built from ' + pkg + '\\n')
    console.log(pkg + ' build: Done')
  }
  if (process.env.FAKE_BUILD_FAILS) { console.error('tsup: boom'); process.exit(3) }
}
`,
  )
  const calls = () => {
    try {
      return readFileSync(log, 'utf8').trim().split('\n').filter(Boolean)
    } catch {
      return []
    }
  }
  const run = async () => {
    const lines = []
    const done = await ensureBuilt({
      root,
      who: 'test',
      log: (line) => lines.push(line),
      pnpm: [process.execPath, join(root, 'fake-pnpm.mjs')],
    })
    return { ...done, lines }
  }
  return { root, calls, run }
}

// each case spawns the pretend pnpm a few times: generous limits for a loaded machine
describe(
  'npm start skips install and build when nothing changed (scripts/ensure-built.mjs)',
  { timeout: 60_000 },
  () => {
    it('installs and builds on a cold start with a progress line per step and per package, then skips both', async () => {
      const w = workspace()
      const cold = await w.run()
      expect(cold).toMatchObject({ installed: true, built: true })
      expect(w.calls()).toEqual(['install --frozen-lockfile', 'run build'])
      expect(cold.lines[0]).toBe('test: [1/2] installing dependencies (pnpm install --frozen-lockfile)…')
      expect(cold.lines).toContain('test: [2/2] building 3 packages (pnpm run build)…')
      expect(cold.lines.filter((line) => /built \S+ \(\d\/3, /.test(line))).toHaveLength(3)
      const warm = await w.run()
      expect(warm).toMatchObject({ installed: false, built: false })
      expect(warm.lines).toEqual([
        'test: install and build are up to date (nothing changed since the last build)',
      ])
      expect(w.calls()).toHaveLength(2)
    })

    it('rebuilds without reinstalling when a source changed, and reinstalls when the lockfile did', async () => {
      const w = workspace()
      await w.run()
      write(w.root, 'packages/llm/b/src/index.ts', 'export const x = 2\n')
      expect(await w.run()).toMatchObject({ installed: false, built: true })
      write(w.root, 'pnpm-lock.yaml', 'lockfileVersion: 9.0\n# changed\n')
      expect(await w.run()).toMatchObject({ installed: true, built: true })
      expect(w.calls()).toEqual([
        'install --frozen-lockfile',
        'run build',
        'run build',
        'install --frozen-lockfile',
        'run build',
      ])
    })

    it('rebuilds when a build output is gone, and reinstalls when node_modules is, though nothing changed', async () => {
      const w = workspace()
      await w.run()
      rmSync(join(w.root, 'examples/demo/dist'), { recursive: true })
      expect(await w.run()).toMatchObject({ installed: false, built: true })
      rmSync(join(w.root, 'node_modules'), { recursive: true })
      expect(await w.run()).toMatchObject({ installed: true, built: true })
    })

    it('does its step again when an install or a build ran by hand since (another branch, say)', async () => {
      const w = workspace()
      await w.run()
      // a build of other sources, its inputs since restored: the stamp's inputs match, its outputs do not
      write(w.root, 'packages/core/a/dist/index.js', 'built from another branch\n')
      expect(await w.run()).toMatchObject({ installed: false, built: true })
      write(w.root, 'node_modules/.pnpm/lock.yaml', 'lockfileVersion: 9.0\n# another branch\n')
      expect(await w.run()).toMatchObject({ installed: true, built: true })
      expect(await w.run()).toMatchObject({ installed: false, built: false })
    })

    it('builds again after a failed build, and reports the step with its log', async () => {
      const w = workspace()
      process.env.FAKE_BUILD_FAILS = '1'
      try {
        await expect(w.run()).rejects.toMatchObject({
          message: 'the build step failed (exit 3)',
          output: expect.stringContaining('tsup: boom'),
        })
      } finally {
        delete process.env.FAKE_BUILD_FAILS
      }
      // the install's stamp was kept; the build's was not written
      expect(await w.run()).toMatchObject({ installed: false, built: true })
    })

    it('hashes what a build reads, not tests, outputs or installed modules', () => {
      const w = workspace()
      const before = contentHashes(w.root)
      write(w.root, 'packages/core/a/test/x.test.ts', '// another test\n')
      write(w.root, 'packages/core/a/dist/index.js', 'built\n')
      write(w.root, 'packages/core/a/node_modules/x/index.js', 'installed\n')
      expect(contentHashes(w.root)).toEqual(before)
      write(w.root, 'tsup.shared.ts', 'export const changed = 1\n')
      const config = contentHashes(w.root)
      expect(config.install).toBe(before.install)
      expect(config.build).not.toBe(before.build)
      write(
        w.root,
        'packages/core/a/package.json',
        '{"name":"a","version":"1.0.0","scripts":{"build":"tsup"}}',
      )
      expect(contentHashes(w.root).install).not.toBe(before.install)
    })
  },
)
