import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

// docs/spec.md is the contract: its rules are numbered T1 … TN without gaps (in the order of
// their sections, which is not always the numbers' order), its first paragraph
// says N, and a test names every rule in its title (`it('T22: …')`), so that a merge that adds a
// rule or renumbers one cannot leave the page and the proofs apart.
const root = fileURLToPath(new URL('../..', import.meta.url))
const spec = readFileSync(`${root}docs/spec.md`, 'utf8')
const rules = [...spec.matchAll(/^- \*\*T(\d+)\*\*/gm)].map((m) => Number(m[1]))

function testSources() {
  const files = execFileSync('git', ['ls-files', '-z', '--', 'packages/**/test/**'], { cwd: root })
    .toString()
    .split('\0')
    .filter((file) => /\.(test|property\.test)\.[mc]?[jt]sx?$/.test(file))
  return files.map((file) => readFileSync(`${root}${file}`, 'utf8')).join('\n')
}

describe('docs/spec.md', () => {
  it('numbers its rules T1 … TN without a gap or a repeat, and its first paragraph says N', () => {
    expect(rules.length).toBeGreaterThan(0)
    expect([...rules].sort((a, b) => a - b)).toEqual(rules.map((_, i) => i + 1))
    expect(spec).toContain(`(T1 … T${rules.length})`)
  })

  it('every rule is named in the title of a test', () => {
    const sources = testSources()
    // a title starts with the rule or lists it among others: 'T22: …', 'T21–T25: …', 'T62/T47: …'
    const named = (n) => new RegExp(`['"\`/ ]T${n}[:/ –,]`).test(sources)
    expect(rules.filter((n) => !named(n))).toEqual([])
  })
})
