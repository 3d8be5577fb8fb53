import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  RUN_CODE_TOOL_NAME,
  callableToolNames,
  codeModeRule,
  installSystemPrompt,
  mayCallTool,
  type PresentationMode,
} from '@deepseek-ai/dsh-tools'
import { setup, tool } from './fixtures.ts'

const MODES: readonly PresentationMode[] = ['native', 'code', 'both']

/** Member names declared by `interface Tools` in an SDK. */
function declaredInSdk(sdk: string): string[] {
  const body = sdk.slice(sdk.indexOf('interface Tools {'), sdk.indexOf('declare const tools'))
  return [...body.matchAll(/^ {2}("[^"]+"|[A-Za-z_$][\w$]*)\(/gm)].map((m) =>
    m[1]!.startsWith('"') ? (JSON.parse(m[1]!) as string) : m[1]!,
  )
}

describe('the shared call predicate', () => {
  it('T7: the table — model-direct calls by mode, nested calls anything but run_code', () => {
    const table = MODES.flatMap((mode) =>
      ['run_code', 'read_file'].flatMap((name) =>
        (['model', 'program'] as const).map(
          (origin) => `${mode} ${origin} ${name}: ${mayCallTool(mode, name, origin)}`,
        ),
      ),
    )
    expect(table).toEqual([
      'native model run_code: false',
      'native program run_code: false',
      'native model read_file: true',
      'native program read_file: true',
      'code model run_code: true',
      'code program run_code: false',
      'code model read_file: false',
      'code program read_file: true',
      'both model run_code: true',
      'both program run_code: false',
      'both model read_file: true',
      'both program read_file: true',
    ])
    expect(callableToolNames('code', ['a', RUN_CODE_TOOL_NAME, 'b'], 'model')).toEqual([RUN_CODE_TOOL_NAME])
    expect(callableToolNames('code', ['a', RUN_CODE_TOOL_NAME, 'b'], 'program')).toEqual(['a', 'b'])
  })

  it('T7: the prompt agrees with the predicate — the schemas offered, the SDK declared and the rule stated', () => {
    const names = fc.uniqueArray(fc.stringMatching(/^[a-z][a-z0-9_-]{0,8}$/), { maxLength: 6 })
    fc.assert(
      fc.property(fc.constantFrom(...MODES), names, (mode, visible) => {
        const { ctx } = setup({ defaultPresentation: mode })
        installSystemPrompt(ctx)
        for (const name of visible) ctx.tools.register(tool(name))
        const prompt = ctx.systemPrompt!
        const offered = prompt.tools('p').map((s) => s.name)
        const direct = [RUN_CODE_TOOL_NAME, ...visible].filter((n) => mayCallTool(mode, n, 'model'))
        expect(new Set(offered)).toEqual(new Set(direct))
        expect(offered).toHaveLength(direct.length)
        expect(declaredInSdk(prompt.sdk()).sort()).toEqual(
          visible.filter((n) => mayCallTool(mode, n, 'program')).sort(),
        )
        const text = prompt.text({ provider: 'p' }) ?? ''
        const rule = codeModeRule(mode, visible)
        if (!mayCallTool(mode, RUN_CODE_TOOL_NAME, 'model')) {
          expect(rule).toBeUndefined()
          expect(text).not.toContain('run_code')
        } else {
          expect(text).toContain(rule!)
          const programOnly = visible.filter((n) => !mayCallTool(mode, n, 'model'))
          if (programOnly.length > 0) {
            const listed = direct.map((n) => `\`${n}\``).join(', ')
            expect(rule).toContain(`Only ${listed} can be called directly`)
          } else {
            expect(rule).toMatch(/^Every tool can be called directly\./)
          }
        }
      }),
      { numRuns: 60 },
    )
  }, 30_000) // 60 fresh registries: a safety net on a busy machine, not a timing check
})
