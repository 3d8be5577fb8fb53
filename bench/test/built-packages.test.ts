import { mkdirSync, mkdtempSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { buildProblem } from '../src/harness/built-packages.ts'

const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

/** A package folder with `src/a/b.ts` and `dist/index.js`, reached through a workspace-style link. */
function fakePackage(): { readonly entry: string; readonly source: string; readonly built: string } {
  const root = mkdtempSync(join(tmpdir(), 'dsh-built-'))
  dirs.push(root)
  const pkg = join(root, 'packages', 'tools')
  mkdirSync(join(pkg, 'src', 'a'), { recursive: true })
  mkdirSync(join(pkg, 'dist'))
  writeFileSync(join(pkg, 'src', 'a', 'b.ts'), 'export {}')
  writeFileSync(join(pkg, 'dist', 'index.js'), 'export {}')
  mkdirSync(join(root, 'bench', 'node_modules', '@deepseek-ai'), { recursive: true })
  const link = join(root, 'bench', 'node_modules', '@deepseek-ai', 'dsh-tools')
  symlinkSync(pkg, link)
  return {
    entry: join(link, 'dist', 'index.js'),
    source: join(pkg, 'src', 'a', 'b.ts'),
    built: join(pkg, 'dist', 'index.js'),
  }
}

const at = (path: string, seconds: number) => utimesSync(path, seconds, seconds)

describe('the bench measures only builds of the current sources', () => {
  it('accepts a build newer than every source', () => {
    const pkg = fakePackage()
    at(pkg.source, 1_000)
    at(pkg.built, 2_000)
    expect(buildProblem(pkg.entry)).toBeUndefined()
  })

  it('names the source changed after the build, found through the link and in a subfolder', () => {
    const pkg = fakePackage()
    at(pkg.built, 1_000)
    at(pkg.source, 2_000)
    expect(buildProblem(pkg.entry)).toEqual({ kind: 'stale', entry: pkg.entry, newer: pkg.source })
  })

  it('reports a package that is not built', () => {
    const pkg = fakePackage()
    rmSync(pkg.built)
    expect(buildProblem(pkg.entry)).toEqual({ kind: 'missing', entry: pkg.entry })
  })
})
