import { execFileSync } from 'node:child_process'
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import { readTarballName, withPackedDependencies } from '../use-packed.mjs'

const script = fileURLToPath(new URL('../use-packed.mjs', import.meta.url))
const dirs = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

const TARBALLS = ['llm', 'context', 'session', 'tools', 'agent-loop', 'agent-tool-presentation'].map(
  (name) => `deepseek-ai-dsh-${name}-0.0.0.tgz`,
)

function setUp() {
  const root = mkdtempSync(join(tmpdir(), 'dsh-use-packed-'))
  dirs.push(root)
  const packed = join(root, 'packed')
  mkdirSync(packed)
  for (const file of TARBALLS) writeFileSync(join(packed, file), `tarball ${file}`)
  writeFileSync(join(packed, 'notes.txt'), 'not a tarball')
  const project = join(root, 'app')
  mkdirSync(project)
  writeFileSync(
    join(project, 'package.json'),
    JSON.stringify({ name: 'app', dependencies: { zod: '^4.1.0' }, overrides: { foo: '1.0.0' } }),
  )
  const run = (...args) =>
    execFileSync(process.execPath, [script, '--from', packed, ...args], {
      cwd: project,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    })
  return { project, packed, run }
}

describe('use-packed adds the packed suite to a project for npm and pnpm (scripts/use-packed.mjs)', () => {
  it('reads package names and versions from tarball names', () => {
    expect(readTarballName('deepseek-ai-dsh-agent-tool-presentation-0.0.0.tgz')).toEqual({
      name: '@deepseek-ai/dsh-agent-tool-presentation',
      version: '0.0.0',
    })
    expect(readTarballName('deepseek-ai-dsh-tools-1.2.3-rc.1.tgz')).toEqual({
      name: '@deepseek-ai/dsh-tools',
      version: '1.2.3-rc.1',
    })
    expect(readTarballName('zod-4.1.0.tgz')).toBeUndefined()
  })

  it('depends on the named packages and overrides every packed one, for npm and for pnpm, keeping the rest', () => {
    const { project, run } = setUp()
    run('@deepseek-ai/dsh-agent-loop', 'tools')
    const manifest = JSON.parse(readFileSync(join(project, 'package.json'), 'utf8'))
    expect(manifest.dependencies).toEqual({
      '@deepseek-ai/dsh-agent-loop': 'file:vendor/dsh/deepseek-ai-dsh-agent-loop-0.0.0.tgz',
      '@deepseek-ai/dsh-tools': 'file:vendor/dsh/deepseek-ai-dsh-tools-0.0.0.tgz',
      zod: '^4.1.0',
    })
    const expected = Object.fromEntries(
      TARBALLS.map((file) => [readTarballName(file).name, `file:vendor/dsh/${file}`]),
    )
    expect(manifest.overrides).toEqual({ ...expected, foo: '1.0.0' })
    expect(manifest.pnpm.overrides).toEqual(expected)
    expect(readdirSync(join(project, 'vendor/dsh')).sort()).toEqual([...TARBALLS].sort())
  })

  it('runs when the clone is reached through a symlink (node ../dsh/scripts/use-packed.mjs)', () => {
    const { project, packed } = setUp()
    const link = join(project, '..', 'dsh')
    symlinkSync(fileURLToPath(new URL('../..', import.meta.url)), link)
    execFileSync(process.execPath, ['../dsh/scripts/use-packed.mjs', '--from', packed, 'tools'], {
      cwd: project,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    const manifest = JSON.parse(readFileSync(join(project, 'package.json'), 'utf8'))
    expect(manifest.dependencies['@deepseek-ai/dsh-tools']).toBe(
      'file:vendor/dsh/deepseek-ai-dsh-tools-0.0.0.tgz',
    )
  })

  it('replaces the tarballs of an earlier pack, so none is left behind', () => {
    const { project, packed, run } = setUp()
    run('context')
    rmSync(join(packed, 'deepseek-ai-dsh-context-0.0.0.tgz'))
    writeFileSync(join(packed, 'deepseek-ai-dsh-context-0.1.0.tgz'), 'newer')
    run('context')
    const manifest = JSON.parse(readFileSync(join(project, 'package.json'), 'utf8'))
    expect(manifest.dependencies['@deepseek-ai/dsh-context']).toBe(
      'file:vendor/dsh/deepseek-ai-dsh-context-0.1.0.tgz',
    )
    expect(existsSync(join(project, 'vendor/dsh/deepseek-ai-dsh-context-0.0.0.tgz'))).toBe(false)
  })

  it('refuses a package that was not packed, naming it, and leaves package.json alone', () => {
    const { project, run } = setUp()
    const before = readFileSync(join(project, 'package.json'), 'utf8')
    let failure
    try {
      run('tools', 'dsh-nope')
    } catch (error) {
      failure = error
    }
    expect(failure?.status).toBe(1)
    expect(failure?.stderr).toContain('not among the packed packages: @deepseek-ai/dsh-nope')
    expect(readFileSync(join(project, 'package.json'), 'utf8')).toBe(before)
    expect(() =>
      withPackedDependencies({ manifest: {}, tarballs: [], names: ['@deepseek-ai/dsh-x'], vendor: 'v' }),
    ).toThrow('not among the packed packages: @deepseek-ai/dsh-x')
  })
})
