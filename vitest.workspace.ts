import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { defineProject, type TestProjectConfiguration } from 'vitest/config'

/**
 * The real list of test projects: one per package. The root `vitest.config.ts`
 * imports it. Workspace packages resolve to their TypeScript sources, so tests
 * never depend on a stale `dist/`.
 */
export const packages = [
  { name: 'llm', dir: 'packages/llm/llm', id: '@deepseek-ai/dsh-llm' },
  { name: 'context', dir: 'packages/core/context', id: '@deepseek-ai/dsh-context' },
  { name: 'session', dir: 'packages/core/session', id: '@deepseek-ai/dsh-session' },
  { name: 'tools', dir: 'packages/core/tools', id: '@deepseek-ai/dsh-tools', typeTests: true },
  { name: 'agent-loop', dir: 'packages/core/agent-loop', id: '@deepseek-ai/dsh-agent-loop' },
] as const

const here = (path: string): string => fileURLToPath(new URL(path, import.meta.url))

/** Every entry of every package (`.` and subpaths such as `/json-schema`), from its `dsh-source` export. */
export const sourceAliases = packages.flatMap((pkg) => {
  const manifest = JSON.parse(readFileSync(here(`${pkg.dir}/package.json`), 'utf8')) as {
    exports: Record<string, string | { 'dsh-source'?: string }>
  }
  return Object.entries(manifest.exports).flatMap(([subpath, target]) =>
    typeof target === 'object' && target['dsh-source'] !== undefined
      ? [
          {
            find: new RegExp(`^${(pkg.id + subpath.slice(1)).replace(/[/.]/g, '\\$&')}$`),
            replacement: here(`${pkg.dir}/${target['dsh-source']}`),
          },
        ]
      : [],
  )
})

export const projects: TestProjectConfiguration[] = packages.map((pkg) =>
  defineProject({
    resolve: { alias: sourceAliases },
    test: {
      name: pkg.name,
      root: here(pkg.dir),
      include: ['test/**/*.test.ts'],
      benchmark: { include: ['bench/**/*.bench.ts'] },
      // Type-level tests (*.test-d.ts) only where a package has them: each enabled project runs tsc.
      typecheck: {
        enabled: 'typeTests' in pkg,
        include: ['test/**/*.test-d.ts'],
        tsconfig: here('tsconfig.json'),
      },
    },
  }),
)
