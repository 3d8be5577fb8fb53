import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { runHarness } from '../examples/harness.mjs'
import { startReplayServer, type ReplayServer } from '../../../../test-support/replay-server.ts'
import { sse, sseText } from './support/sse.ts'
import { answerStep, toolStep } from './support/turns.ts'

let server: ReplayServer
let dir: string
beforeEach(async () => {
  server = await startReplayServer()
  dir = mkdtempSync(join(tmpdir(), 'dsh-harness-'))
})
afterEach(async () => {
  await server.close()
  rmSync(dir, { recursive: true, force: true })
})

describe('examples/harness.mjs', () => {
  it('runs a turn through DSH_* against the local server; its tools stay inside the project directory', async () => {
    const project = join(dir, 'project')
    mkdirSync(join(project, 'src'), { recursive: true })
    writeFileSync(join(project, 'README.md'), '# demo\nA tiny project.\n')
    writeFileSync(join(dir, 'secret.txt'), 'do not read')
    symlinkSync(join(dir, 'secret.txt'), join(project, 'escape.txt'))
    server.respond(
      sse(
        sseText(
          toolStep('Look at the root, the README, and that link.', [
            { id: 'c1', name: 'list_files', args: { path: '.' } },
            { id: 'c2', name: 'read_file', args: { path: 'README.md' } },
            { id: 'c3', name: 'read_file', args: { path: 'escape.txt' } },
            { id: 'c4', name: 'read_file', args: { path: '../secret.txt' } },
          ]),
        ),
      ),
      sse(sseText(answerStep('A tiny demo project.'))),
    )
    const lines: string[] = []
    const { result, pairsOk } = await runHarness({
      prompt: 'What is this?',
      root: project,
      env: { DSH_BASE_URL: server.baseUrl, DSH_API_KEY: 'sk-harness', DSH_MODEL: 'deepseek-chat' },
      print: (line) => lines.push(line),
    })
    expect(result).toMatchObject({ reason: 'completed', steps: 2, text: 'A tiny demo project.' })
    expect(pairsOk).toBe(true)
    expect(lines[0]).toBe(`openai-compatible deepseek-chat at ${server.baseUrl}/chat/completions`)
    expect(lines).toContain('step 1: tool-calls, 200 in (cache hit 128, miss 72), 40 out')
    expect(lines).toContain('  read_file README.md → ok')
    expect(lines.at(-1)).toBe('completed after 2 step(s): A tiny demo project.')
    const results = (
      server.requests[1]!.body.messages as { role: string; tool_call_id?: string; content: string }[]
    )
      .filter((m) => m.role === 'tool')
      .map((m) => [m.tool_call_id, m.content])
    expect(results[0]).toEqual(['c1', 'README.md\nescape.txt\nsrc/'])
    expect(results[1]).toEqual(['c2', '# demo\nA tiny project.\n'])
    expect(results[2]![1]).toContain('escape.txt is outside the project directory')
    expect(results[3]![1]).toContain('../secret.txt is outside the project directory')
    expect(JSON.stringify(server.requests[1]!.body)).not.toContain('do not read')
  })
})
