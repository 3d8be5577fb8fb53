import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { transformSync } from 'esbuild'

/** The test projects a mutant may name (vitest.workspace.ts), and where each package lives. */
export const PACKAGE_DIRS = {
  tools: 'packages/core/tools',
  context: 'packages/core/context',
  session: 'packages/core/session',
  'agent-loop': 'packages/core/agent-loop',
  'session-postgres': 'packages/session/session-postgres',
  'dispatch-bullmq': 'packages/plugins/dispatch-bullmq',
  permissions: 'packages/plugins/permissions',
  mcp: 'packages/plugins/mcp',
  otel: 'packages/plugins/otel',
  'code-runtime': 'packages/code-runtime/code-runtime',
  llm: 'packages/llm/llm',
  'llm-openai': 'packages/llm/llm-openai',
  'llm-ai-sdk': 'packages/llm/llm-ai-sdk',
  timeline: 'packages/tools-ui/timeline',
  'agent-tool-presentation': 'packages/core/agent-tool-presentation',
}
export const PACKAGES = Object.keys(PACKAGE_DIRS)

const FIELDS = ['id', 'package', 'file', 'find', 'replace', 'kind', 'description', 'attacks']

/** How many times `needle` occurs in `text` (overlapping occurrences count). */
export function countOccurrences(text, needle) {
  let count = 0
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + 1)) count += 1
  return count
}

/**
 * The source with the mutant applied: its `find` string occurs exactly once, or exactly
 * `occurrences` times of which `nth` (1-based) is replaced.
 */
export function applyMutant(source, mutant) {
  let at = source.indexOf(mutant.find)
  for (let n = 1; n < (mutant.nth ?? 1); n += 1) at = source.indexOf(mutant.find, at + 1)
  return source.slice(0, at) + mutant.replace + source.slice(at + mutant.find.length)
}

/**
 * Every problem of the list, as readable lines; empty when it is valid: well-formed entries with
 * unique ids, a known package, a source file of that package, a single-line `find` that occurs
 * exactly once in the file, a replacement that differs, and a mutated file that still parses (a
 * mutant must be a bug the tests can find, not a syntax error).
 */
export function checkMutants(mutants, root) {
  const problems = []
  const ids = new Set()
  const sources = new Map()
  for (const [index, mutant] of mutants.entries()) {
    const name = typeof mutant?.id === 'string' ? mutant.id : `mutants[${index}]`
    const missing = FIELDS.filter((field) => typeof mutant?.[field] !== 'string' || mutant[field] === '')
    if (missing.length > 0) {
      problems.push(`${name}: missing or empty ${missing.join(', ')}`)
      continue
    }
    if (ids.has(mutant.id)) problems.push(`${name}: the id is used twice`)
    ids.add(mutant.id)
    if (!/^[a-z0-9-]+$/.test(mutant.id)) problems.push(`${name}: ids are lower-case words joined by -`)
    if (!PACKAGES.includes(mutant.package)) {
      problems.push(`${name}: package must be one of ${PACKAGES.join(', ')}, got "${mutant.package}"`)
      continue
    }
    const dir = PACKAGE_DIRS[mutant.package]
    if (!mutant.file.startsWith(`${dir}/src/`) || !mutant.file.endsWith('.ts')) {
      problems.push(`${name}: file must be a .ts source under ${dir}/src/`)
      continue
    }
    if (mutant.find.includes('\n') || mutant.replace.includes('\n'))
      problems.push(`${name}: find and replace must be single-line`)
    if (mutant.find === mutant.replace) problems.push(`${name}: replace equals find`)
    let source = sources.get(mutant.file)
    if (source === undefined) {
      try {
        source = readFileSync(join(root, mutant.file), 'utf8')
      } catch (error) {
        problems.push(`${name}: cannot read ${mutant.file} (${error.code ?? error.message})`)
        continue
      }
      sources.set(mutant.file, source)
    }
    // Identical lines (the same check in two places) are told apart by position; declaring how
    // many there are keeps a refactoring that adds or removes one from shifting the target silently.
    const expected = mutant.occurrences ?? 1
    const positional = mutant.occurrences !== undefined || mutant.nth !== undefined
    const { occurrences, nth } = mutant
    if (
      positional &&
      !(
        Number.isInteger(occurrences) &&
        occurrences > 1 &&
        Number.isInteger(nth) &&
        nth >= 1 &&
        nth <= occurrences
      )
    ) {
      problems.push(`${name}: occurrences (an integer > 1) and nth (1 to occurrences) go together`)
      continue
    }
    const count = countOccurrences(source, mutant.find)
    if (count !== expected) {
      problems.push(
        `${name}: ${JSON.stringify(mutant.find)} occurs ${count} times in ${mutant.file}; it must occur exactly ${expected === 1 ? 'once' : `${expected} times (occurrences)`}`,
      )
      continue
    }
    try {
      transformSync(applyMutant(source, mutant), {
        loader: 'ts',
        sourcefile: mutant.file,
        logLevel: 'silent',
      })
    } catch (error) {
      const first = error.errors?.[0]?.text ?? error.message
      problems.push(`${name}: the mutated ${mutant.file} does not parse (${first})`)
    }
  }
  return problems
}

/** Every first-tier test file (mutants.mjs `firstTests`) that does not exist, as readable lines. */
export function checkFirstTests(firstTests, root) {
  const problems = []
  for (const [pkg, entries] of Object.entries(firstTests)) {
    if (!PACKAGES.includes(pkg)) problems.push(`firstTests: unknown package "${pkg}"`)
    for (const [pattern, files] of entries) {
      for (const name of files) {
        const dir = PACKAGE_DIRS[pkg] ?? `packages/core/${pkg}`
        if (!existsSync(join(root, dir, 'test', name)))
          problems.push(`firstTests ${pkg} ${pattern}: ${dir}/test/${name} does not exist`)
      }
    }
  }
  return problems
}
