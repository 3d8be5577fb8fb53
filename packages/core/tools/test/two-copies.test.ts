import { execFileSync } from 'node:child_process'
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build, type Options } from 'tsup'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import toolsBuild from '../tsup.config.ts'

const here = dirname(fileURLToPath(import.meta.url))
const toolsDir = join(here, '..')
const repo = join(toolsDir, '..', '..', '..')
const workspace = {
  '@deepseek-ai/dsh-llm': join(repo, 'packages/llm/llm'),
  '@deepseek-ai/dsh-context': join(repo, 'packages/core/context'),
}

function newestMtime(dir: string): number {
  let newest = 0
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs)
  }
  return newest
}

/** The copies import the built workspace packages they depend on; build those when stale. */
function ensureDependenciesBuilt(): void {
  const stale = Object.values(workspace).some((dir) => {
    const dist = join(dir, 'dist/index.js')
    return !existsSync(dist) || statSync(dist).mtimeMs < newestMtime(join(dir, 'src'))
  })
  if (stale)
    execFileSync('pnpm', ['--filter', '@deepseek-ai/dsh-tools^...', 'run', 'build'], {
      cwd: repo,
      stdio: 'ignore',
    })
}

/**
 * A physical copy of the tools package as another release of it would be installed (a plugin's
 * private install): its sources with `version` in the manifest, built by the package's own build
 * config, in its own node_modules. Returns the copy's directory.
 */
async function buildCopy(root: string, version: string): Promise<string> {
  const target = join(root, 'node_modules/@deepseek-ai/dsh-tools')
  mkdirSync(target, { recursive: true })
  cpSync(join(toolsDir, 'src'), join(target, 'src'), { recursive: true })
  const manifest = JSON.parse(readFileSync(join(toolsDir, 'package.json'), 'utf8')) as Record<string, unknown>
  writeFileSync(join(target, 'package.json'), JSON.stringify({ ...manifest, version }))
  const deps: Record<string, string> = { ...workspace, zod: realpathSync(join(toolsDir, 'node_modules/zod')) }
  for (const [name, source] of Object.entries(deps)) {
    const link = join(root, 'node_modules', name)
    mkdirSync(dirname(link), { recursive: true })
    symlinkSync(source, link, 'dir')
  }
  const config = toolsBuild as Options
  await build({
    ...config,
    config: false,
    entry: { index: join(target, 'src/index.ts') },
    outDir: join(target, 'dist'),
    format: ['esm'],
    dts: false,
    silent: true,
    external: [/^[^./]/],
    tsconfig: join(toolsDir, 'tsconfig.build.json'),
  })
  return target
}

function run(copyA: string, copyB: string): Record<string, unknown> {
  const out = execFileSync(
    process.execPath,
    [
      join(here, 'fixtures/two-copies.mjs'),
      copyA,
      copyB,
      join(workspace['@deepseek-ai/dsh-context'], 'dist/index.js'),
    ],
    { encoding: 'utf8' },
  )
  return JSON.parse(out) as Record<string, unknown>
}

describe('two physical copies of @deepseek-ai/dsh-tools in one process', () => {
  let tmp: string
  beforeAll(() => {
    ensureDependenciesBuilt()
    tmp = mkdtempSync(join(tmpdir(), 'dsh-two-copies-'))
  }, 120_000)
  afterAll(() => rmSync(tmp, { recursive: true, force: true }))

  it('T19: copies of the same major version share the scheduler key and run a call across copies', async () => {
    const a = await buildCopy(join(tmp, 'host'), '0.1.0')
    const b = await buildCopy(join(tmp, 'plugin'), '0.1.3')
    const report = run(a, b)
    expect(report.distinctModules).toBe(true)
    expect(report.error).toBeUndefined()
    expect(report.staged).toEqual({ isError: false, content: [{ type: 'text', text: '3' }], value: 3 })
    expect(report.batch).toEqual([
      { isError: false, content: [{ type: 'text', text: '5' }], value: 5 },
      {
        isError: true,
        content: [{ type: 'text', text: 'Unknown tool "nope". Available tools: add.' }],
        error: {
          message: 'Unknown tool "nope". Available tools: add.',
          info: { name: 'UnknownTool', code: 'UNKNOWN_TOOL' },
        },
      },
    ])
    expect(report.secondInstall).toMatchObject({ code: 'ALREADY_INSTALLED', recognisedByA: true })
  }, 60_000)

  it('T19: a version mismatch fails at startup with both versions and the file of each copy named', async () => {
    const a = await buildCopy(join(tmp, 'host2'), '0.1.0')
    const b = await buildCopy(join(tmp, 'plugin2'), '1.0.0')
    const report = run(a, b)
    const error = report.error as { code: string; message: string }
    expect(error.code).toBe('SCHEDULER_VERSION_MISMATCH')
    expect(error.message).toContain(`@deepseek-ai/dsh-tools@0.1.0 at ${join(a, 'dist/index.js')}`)
    expect(error.message).toContain(`@deepseek-ai/dsh-tools@1.0.0 at ${join(b, 'dist/index.js')}`)
    expect(error.message).not.toContain('Cannot read properties')
    expect(report.secondInstall).toMatchObject({ code: 'SCHEDULER_VERSION_MISMATCH' })
  }, 60_000)

  it('T19: the version is inlined at build time; the manifest on disk is never read at run time', async () => {
    const a = await buildCopy(join(tmp, 'host3'), '0.1.0')
    const b = await buildCopy(join(tmp, 'plugin3'), '1.0.0')
    // Rewrite the installed manifest after the build: a bundle has no manifest to read at all.
    const manifest = JSON.parse(readFileSync(join(b, 'package.json'), 'utf8')) as Record<string, unknown>
    writeFileSync(join(b, 'package.json'), JSON.stringify({ ...manifest, version: '0.1.9' }))
    const report = run(a, b)
    expect((report.error as { message: string }).message).toContain('@deepseek-ai/dsh-tools@1.0.0 at ')
    expect(readFileSync(join(b, 'dist/index.js'), 'utf8')).not.toMatch(
      /createRequire|readFileSync|(?:from|import|require\()\s*["'][^"']*package\.json/,
    )
  }, 60_000)
})
