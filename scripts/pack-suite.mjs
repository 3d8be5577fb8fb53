// The suite's packages as npm users get them: `pnpm pack` of each (pnpm substitutes
// `publishConfig.exports` and turns `workspace:` ranges into versions; each `prepack` rebuilds a
// stale build). Used by the packed-artifact check (scripts/check-packed.mjs) and by
// `npm run pack:local` (scripts/pack-local.mjs), which packs the set for scripts/use-packed.mjs.
import { execFile } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'

/** Every published package of the suite, dependencies first. */
export const PACKAGE_DIRS = [
  'packages/llm/llm',
  'packages/core/context',
  'packages/core/session',
  'packages/core/tools',
  'packages/core/agent-loop',
  'packages/core/agent-tool-presentation',
  'packages/llm/llm-openai',
  'packages/llm/llm-ai-sdk',
  'packages/code-runtime/code-runtime',
  'packages/plugins/mcp',
  'packages/plugins/otel',
  'packages/tools-ui/timeline',
  'packages/plugins/permissions',
  'packages/plugins/dispatch-bullmq',
  'packages/session/session-postgres',
]

/**
 * Packs every package of `repo` into `destination` with one recursive `pnpm pack` (one pnpm start-up
 * instead of fourteen). `pnpm` is the command that runs pnpm (`['pnpm']` under `pnpm run`, else
 * `['npx', '-y', 'pnpm@…']`). Run after a build: packs of a stale tree would each rebuild the
 * packages they depend on, at the same time. Resolves with `{ name, dir, tarball }` per package.
 */
export async function packSuite({ repo, destination, pnpm = ['pnpm'] }) {
  await promisify(execFile)(
    pnpm[0],
    [...pnpm.slice(1), '-r', '--filter', './packages/**', 'pack', '--pack-destination', destination],
    { cwd: repo, maxBuffer: 64 * 1024 * 1024 },
  )
  return PACKAGE_DIRS.map((dir) => {
    const { name, version } = JSON.parse(readFileSync(join(repo, dir, 'package.json'), 'utf8'))
    // pnpm's file name: the scope without its `@`, joined by `-`, then the version
    const tarball = join(destination, `${name.replace(/^@/, '').replace('/', '-')}-${version}.tgz`)
    if (!existsSync(tarball)) throw new Error(`pnpm pack wrote no ${tarball} for ${dir}`)
    return { name, dir, tarball }
  })
}
