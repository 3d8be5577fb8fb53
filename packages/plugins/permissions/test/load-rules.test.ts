import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { PermissionsError, createPermissionEngine, loadRules } from '@deepseek-ai/dsh-permissions'

const dir = mkdtempSync(join(tmpdir(), 'dsh-permissions-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

let counter = 0
function file(text: string | Buffer): string {
  const path = join(dir, `rules-${counter++}.json`)
  writeFileSync(path, text)
  return path
}

async function rejection(promise: Promise<unknown>): Promise<PermissionsError> {
  try {
    await promise
  } catch (error) {
    if (PermissionsError.isInstance(error)) return error
    throw error
  }
  throw new Error('expected a rejection')
}

describe('loadRules', () => {
  it('P9: reads { rules: [...] } into frozen rules an engine accepts', async () => {
    const path = file(
      '\uFEFF' +
        JSON.stringify({
          $schema: './permissions.schema.json',
          rules: [
            { decision: 'deny', tool: 'bash', command: 'rm' },
            { decision: 'allow', tool: 'read_file', paths: ['src/**'] },
          ],
        }),
    )
    const rules = await loadRules(path, { layer: 'project' })
    expect(rules).toEqual([
      { decision: 'deny', tool: 'bash', command: 'rm' },
      { decision: 'allow', tool: 'read_file', paths: ['src/**'] },
    ])
    expect(Object.isFrozen(rules)).toBe(true)
    const engine = createPermissionEngine({
      workspaceRoot: '/repo',
      toolArguments: { read_file: { paths: ['path'] } },
      layers: { project: rules },
    })
    expect(engine.decide({ toolName: 'read_file', args: { path: 'src/a' } }).type).toBe('allow')
  })

  it('P9: a missing file and bad JSON are INVALID_RULES_FILE naming the file', async () => {
    const missing = join(dir, 'missing.json')
    const error = await rejection(loadRules(missing, { layer: 'project' }))
    expect(error.code).toBe('INVALID_RULES_FILE')
    expect(error.message).toMatch(
      new RegExp(`^${missing.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}: cannot read the rules file: .*ENOENT`),
    )
    const bad = file('{ "rules": [ { "decision": "deny", } ] }')
    const json = await rejection(loadRules(bad, { layer: 'project' }))
    expect(json.code).toBe('INVALID_RULES_FILE')
    expect(json.message).toMatch(/: not valid JSON: .*JSON/)
    expect(json.message.startsWith(`${bad}: `)).toBe(true)
    const notObject = await rejection(loadRules(file('[]'), { layer: 'project' }))
    expect(notObject.code).toBe('INVALID_RULES_FILE')
    expect(notObject.message).toMatch(
      /: file: Invalid input: expected object, received array \(got an array of length 0\)$/,
    )
    const huge = await rejection(loadRules(file(Buffer.alloc(1024 * 1024 + 1, 32)), { layer: 'project' }))
    expect(huge.message).toMatch(/more than the 1048576 a rules file may have/)
  })

  it('P9: a bad rule is INVALID_RULE naming the file, the layer, the index, the field and the value', async () => {
    const path = file(
      JSON.stringify({
        rules: [
          { decision: 'deny', tool: 'bash', command: 'rm' },
          { decision: 'allow', tool: 'read_file', paths: ['src/**', '!src/secret'] },
        ],
      }),
    )
    const error = await rejection(loadRules(path, { layer: 'deployment' }))
    expect(error.code).toBe('INVALID_RULE')
    expect(error.message).toBe(
      `${path}: deployment rule 1: paths[1]: negated globs ("!…") are not supported; put the exception in an earlier rule of the layer instead (got the string "!src/secret")`,
    )
    const extra = await rejection(loadRules(file(JSON.stringify({ rule: [] })), { layer: 'project' }))
    expect(extra.code).toBe('INVALID_RULES_FILE')
    expect(extra.message).toMatch(
      /: file\.rules: Invalid input: expected array, .*; file: Unrecognized key: "rule"$/,
    )
  })

  it('P9: the layer must be named, so errors can name it', async () => {
    const error = await rejection(loadRules(file('{"rules":[]}'), { layer: 'team' as never }))
    expect(error.code).toBe('INVALID_ARGUMENT')
    expect(error.message).toBe(
      'loadRules(file, { layer }): layer must be one of deployment, project, session, got "team"',
    )
  })
})
