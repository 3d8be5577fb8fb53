import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { notFromTarballs, readmeInstall, readmeTaste } from '../packed-readme-install.mjs'
import { TESTED_NODE_PROJECTS, TESTED_NODE_VERSIONS, testedProjectsOf } from '../tested-node.mjs'

const root = fileURLToPath(new URL('../..', import.meta.url))
const read = (file) => readFileSync(`${root}/${file}`, 'utf8')

describe("the README's newcomer commands are the ones CI runs", () => {
  it('installs the packed tarballs with use-packed (the packed-artifact check and CI run this block)', () => {
    const readme = read('README.md')
    expect(readmeInstall(readme)).toEqual({
      names: ['@deepseek-ai/dsh-agent-loop', '@deepseek-ai/dsh-tools', '@deepseek-ai/dsh-context'],
      npm: ['zod'],
      pnpm: ['zod'],
    })
    expect(readmeTaste(readme).expected).toHaveLength(3)
    // never the registry's @deepseek-ai/dsh-* packages, which are another project's
    expect(readme).not.toMatch(/^npm install @deepseek-ai\//m)
    expect(() =>
      readmeInstall('## Install\n\n```sh\nnpm install @deepseek-ai/dsh-tools\n```\n## Next'),
    ).toThrow('must run `node …/scripts/use-packed.mjs <packages>`')
  })

  it('names the Node versions CI tests, Chromium, and the test command CI runs', () => {
    const readme = read('README.md')
    for (const version of TESTED_NODE_VERSIONS) expect(readme).toContain(version)
    // every project a version runs is a test project, and the newest runs the whole core
    const workspace = read('vitest.workspace.ts')
    for (const version of TESTED_NODE_VERSIONS) {
      for (const project of testedProjectsOf(version)) expect(workspace).toContain(`name: '${project}'`)
    }
    expect(testedProjectsOf(TESTED_NODE_VERSIONS.at(-1))).toEqual(TESTED_NODE_PROJECTS)
    expect(readme).toMatch(/```sh\nnpm run ci\n```/)
    expect(readme).toContain('chromium')
    expect(JSON.parse(read('package.json')).scripts.ci).toBe('node scripts/ci.mjs')
    expect(read('.ci/run')).toContain('exec node scripts/newcomer-ci.mjs')
    expect(read('scripts/newcomer-ci.mjs')).toContain("step('npm run ci', 'npm', ['run', 'ci']")
  })

  it('finds a package of the suite that a lockfile resolved from the registry (npm and pnpm)', () => {
    const npmLock = (resolved) =>
      JSON.stringify({
        packages: {
          '': {},
          'node_modules/@deepseek-ai/dsh-tools': {
            resolved: 'file:vendor/dsh/deepseek-ai-dsh-tools-0.0.0.tgz',
          },
          'node_modules/@deepseek-ai/dsh-session': { resolved },
          'node_modules/zod': { resolved: 'https://registry.npmjs.org/zod/-/zod-4.0.17.tgz' },
        },
      })
    expect(notFromTarballs('npm', npmLock('file:vendor/dsh/deepseek-ai-dsh-session-0.0.0.tgz'))).toEqual([])
    const other = 'https://registry.npmjs.org/@deepseek-ai/dsh-session/-/dsh-session-0.1.1-rc.2.tgz'
    expect(notFromTarballs('npm', npmLock(other))).toEqual([
      `node_modules/@deepseek-ai/dsh-session (${other})`,
    ])
    // pnpm-lock.yaml as pnpm 10 writes it (lockfileVersion 9.0), with one entry from the registry
    const pnpmLock = `lockfileVersion: '9.0'

overrides:
  '@deepseek-ai/dsh-session': file:vendor/dsh/deepseek-ai-dsh-session-0.0.0.tgz

packages:

  '@deepseek-ai/dsh-session@file:vendor/dsh/deepseek-ai-dsh-session-0.0.0.tgz':
    resolution: {integrity: sha512-x, tarball: file:vendor/dsh/deepseek-ai-dsh-session-0.0.0.tgz}
    version: 0.0.0

  '@deepseek-ai/dsh-llm@0.1.1-rc.2':
    resolution: {integrity: sha512-y}

snapshots:

  '@deepseek-ai/dsh-tools@file:vendor/dsh/deepseek-ai-dsh-tools-0.0.0.tgz(zod@4.6.7)':
    dependencies:
      '@deepseek-ai/dsh-llm': 0.1.1-rc.2
`
    expect(notFromTarballs('pnpm', pnpmLock)).toEqual(['@deepseek-ai/dsh-llm@0.1.1-rc.2'])
  })
})
