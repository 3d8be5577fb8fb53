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
  { name: 'llm-openai', dir: 'packages/llm/llm-openai', id: '@deepseek-ai/dsh-llm-openai' },
  { name: 'llm-ai-sdk', dir: 'packages/llm/llm-ai-sdk', id: '@deepseek-ai/dsh-llm-ai-sdk' },
  { name: 'context', dir: 'packages/core/context', id: '@deepseek-ai/dsh-context' },
  { name: 'session', dir: 'packages/core/session', id: '@deepseek-ai/dsh-session' },
  { name: 'tools', dir: 'packages/core/tools', id: '@deepseek-ai/dsh-tools', typeTests: true },
  { name: 'agent-loop', dir: 'packages/core/agent-loop', id: '@deepseek-ai/dsh-agent-loop' },
  {
    name: 'agent-tool-presentation',
    dir: 'packages/core/agent-tool-presentation',
    id: '@deepseek-ai/dsh-agent-tool-presentation',
  },
  { name: 'code-runtime', dir: 'packages/code-runtime/code-runtime', id: '@deepseek-ai/dsh-code-runtime' },
  { name: 'mcp', dir: 'packages/plugins/mcp', id: '@deepseek-ai/dsh-mcp' },
  { name: 'otel', dir: 'packages/plugins/otel', id: '@deepseek-ai/dsh-otel' },
  { name: 'timeline', dir: 'packages/tools-ui/timeline', id: '@deepseek-ai/dsh-timeline' },
  { name: 'permissions', dir: 'packages/plugins/permissions', id: '@deepseek-ai/dsh-permissions' },
  {
    name: 'dispatch-bullmq',
    dir: 'packages/plugins/dispatch-bullmq',
    id: '@deepseek-ai/dsh-dispatch-bullmq',
    redis: true,
    // the effects crash matrix records its sessions in PostgreSQL
    postgres: true,
  },
  {
    name: 'session-postgres',
    dir: 'packages/session/session-postgres',
    id: '@deepseek-ai/dsh-session-postgres',
    postgres: true,
  },
] as const

/** A real Redis for the projects that need one (test-support/redis-global-setup.ts). */
const redisSetup = fileURLToPath(new URL('test-support/redis-global-setup.ts', import.meta.url))
/** A real PostgreSQL for the projects that need one (test-support/postgres-global-setup.ts). */
const postgresSetup = fileURLToPath(new URL('test-support/postgres-global-setup.ts', import.meta.url))

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
      // real servers and worker processes: generous limits for a loaded machine (none is a timing assertion)
      ...('redis' in pkg ? { testTimeout: 60_000, hookTimeout: 60_000 } : {}),
      benchmark: { include: ['bench/**/*.bench.ts'] },
      globalSetup: [...('redis' in pkg ? [redisSetup] : []), ...('postgres' in pkg ? [postgresSetup] : [])],
      // Type-level tests (*.test-d.ts) only where a package has them: each enabled project runs tsc.
      // `pnpm mutate` switches them off (DSH_SKIP_TYPE_TESTS): a planted bug is judged by behaviour.
      typecheck: {
        enabled: 'typeTests' in pkg && process.env.DSH_SKIP_TYPE_TESTS !== '1',
        include: ['test/**/*.test-d.ts'],
        tsconfig: here('tsconfig.json'),
      },
    },
  }),
)

// The check that the planted-bug list of `pnpm mutate` still applies (scripts/test).
projects.push(
  defineProject({
    test: { name: 'scripts', root: here('scripts'), include: ['test/**/*.test.mjs'] },
  }),
)

// The benchmark suite's smoke test (bench/test): one small round of every case, so a case that
// breaks is caught in CI. The suite itself runs only with `pnpm bench` (slow and noisy).
projects.push(
  defineProject({
    resolve: { alias: sourceAliases },
    // the remote_dispatch case needs a real Redis, the PostgreSQL store cases a real PostgreSQL
    test: {
      name: 'bench',
      root: here('bench'),
      include: ['test/**/*.test.ts'],
      globalSetup: [redisSetup, postgresSetup],
    },
  }),
)

// The demo harness (examples/demo): its tools and progress view, and the demo run end to end as a
// child process (bundled from source by its test, so it needs no build).
projects.push(
  defineProject({
    resolve: { alias: sourceAliases },
    test: { name: 'demo', root: here('examples/demo'), include: ['test/**/*.test.ts'] },
  }),
)

// The scale-out example (examples/scale-out): a harness on PostgreSQL and a BullMQ worker as real
// child processes, run from source; the test kills a harness mid-step and another takes over.
projects.push(
  defineProject({
    resolve: { alias: sourceAliases },
    test: {
      name: 'scale-out',
      root: here('examples/scale-out'),
      include: ['test/**/*.test.ts'],
      globalSetup: [redisSetup, postgresSetup],
      testTimeout: 90_000,
      hookTimeout: 60_000,
    },
  }),
)
