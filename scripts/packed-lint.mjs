// The package linters people already run on what they publish, on each tarball of the suite (part
// of the packed-artifact check, scripts/check-packed.mjs):
// - publint, strict (warnings count as errors; suggestions are reported too), on the tarball itself;
// - Are the Types Wrong? (`@arethetypeswrong/cli`, profile `strict`: every entry resolves with types
//   under node10, node16 from CommonJS and from ESM, and bundler resolution), no DefinitelyTyped.
//   Its core runs in this process, as the CLI does, so its TypeScript loads once for all packages.
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'

/**
 * Entries attw must not judge, with the reason. The code runtime's `./quickjs-worker.mjs` is the
 * entry of its sandbox worker thread: exported so that its path resolves (a bundled application
 * copies it, `require.resolve` finds it), never imported, so it has no types and no CommonJS form.
 */
export const ATTW_EXCLUDED = { '@deepseek-ai/dsh-code-runtime': ['./quickjs-worker.mjs'] }

/** Loads both linters from the repository's devDependencies (attw's core from the CLI's own). */
export async function loadLinters(repo) {
  const repoRequire = createRequire(join(repo, 'package.json'))
  const load = (require, id) => import(pathToFileURL(require.resolve(id)).href)
  const { publint } = await load(repoRequire, 'publint')
  const { formatMessage } = await load(repoRequire, 'publint/utils')
  const cliRequire = createRequire(repoRequire.resolve('@arethetypeswrong/cli/package.json'))
  const attw = await load(cliRequire, '@arethetypeswrong/core')
  return { publint, formatMessage, attw }
}

/** Problems publint and attw report for one tarball, as lines naming the package (empty when clean). */
export async function lintTarball(linters, { name, tarball }) {
  const problems = []
  const bytes = new Uint8Array(readFileSync(tarball))
  const { messages, pkg } = await linters.publint({ pack: { tarball: bytes.slice().buffer }, strict: true })
  for (const message of messages) {
    problems.push(
      `${name}: publint ${message.type} ${message.code}: ${linters.formatMessage(message, pkg, { color: false })}`,
    )
  }
  const analysis = await linters.attw.checkPackage(linters.attw.createPackageFromTarballData(bytes), {
    excludeEntrypoints: ATTW_EXCLUDED[name] ?? [],
  })
  if (!analysis.types) problems.push(`${name}: attw found no types`)
  for (const problem of analysis.problems ?? []) {
    const where = [problem.entrypoint, problem.resolutionKind].filter(Boolean).join(' ')
    problems.push(`${name}: attw ${problem.kind}${where ? ` (${where})` : ''}`)
  }
  return problems
}
