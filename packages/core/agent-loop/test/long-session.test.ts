import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { createContext } from '@deepseek-ai/dsh-context'
import { openJsonlSession, readJsonlSession, verifyToolPairs } from '@deepseek-ai/dsh-session'
import { defineTool, installTools } from '@deepseek-ai/dsh-tools'
import { compactToolResults, createAgent, historyItemsFromSession } from '@deepseek-ai/dsh-agent-loop'
import { z } from 'zod'
import { fitToolOutputs } from '../src/log/fit-tool-output.ts'
import { createWindowedModel } from './support/windowed-model.ts'

const WINDOW = 64_000
const OUTPUT_BYTES = 50_000

/** 50 KB of log lines, different for each part (no two results alike). */
function output(part: number): string {
  const lines: string[] = []
  let size = 0
  for (let i = 0; size < OUTPUT_BYTES; i++) {
    const line = `part ${part} line ${i}: compiled module ${(part * 7919 + i) % 10007} in ${i % 97} ms\n`
    lines.push(line)
    size += line.length
  }
  return lines.join('').slice(0, OUTPUT_BYTES)
}

const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

function tools() {
  const ctx = createContext()
  installTools(ctx)
  ctx.tools.register(
    defineTool({
      name: 'read_log',
      description: 'Read one part of the build log.',
      parameters: z.object({ part: z.number().int() }),
      execute: ({ part }) => output(part),
    }),
  )
  return ctx
}

describe('a long session inside a 64k window', () => {
  it('T56, T57: 200 steps of 50 KB outputs: no request over the window, the log verifies, and every request is what its log prefix rebuilds, across a reopen', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dsh-long-session-'))
    dirs.push(dir)
    const path = join(dir, 'session.jsonl')
    const prepareHistory = compactToolResults({ windowTokens: WINDOW })
    const toolOutput = { maxChars: 30_000, headShare: 0.6 } as const

    // first process: 120 steps, then the turn stops at maxSteps
    let session = openJsonlSession(path, { durability: 'write' })
    const first = createWindowedModel({
      windowTokens: WINDOW,
      tool: 'read_log',
      calls: 200,
      session: () => session,
    })
    const a = createAgent({
      ctx: tools(),
      name: 'long',
      model: first,
      session,
      prepareHistory,
      config: { maxSteps: 120 },
    })
    const partOne = await a.run('read the whole build log, one part a step')
    expect(partOne.reason).toBe('max-steps')
    a.dispose()
    session.close()

    // second process: the same file reopened, the next 80 calls and the answer
    session = openJsonlSession(path, { durability: 'write' })
    const second = createWindowedModel({
      windowTokens: WINDOW,
      tool: 'read_log',
      calls: 80,
      first: 121,
      session: () => session,
    })
    const b = createAgent({
      ctx: tools(),
      name: 'long',
      model: second,
      session,
      prepareHistory,
      config: { maxSteps: 100 },
    })
    const partTwo = await b.run('go on')
    expect(partTwo.reason).toBe('completed')
    expect(partTwo.steps).toBe(81)
    b.dispose()
    session.close()

    // no request was refused, and none came close to the window
    expect(first.refused).toEqual([])
    expect(second.refused).toEqual([])
    const tokens = [...first.tokens, ...second.tokens]
    expect(tokens).toHaveLength(201)
    expect(Math.max(...tokens)).toBeLessThan(WINDOW)

    const { events } = readJsonlSession(path)
    expect(verifyToolPairs(events)).toEqual({ ok: true, problems: [] })
    const results = events.filter((e) => e.type === 'tool/result')
    expect(results).toHaveLength(200)
    // the session keeps every output whole
    for (const event of results.slice(0, 3)) {
      const message = (event.data as { message: { content: { content: { text: string }[] }[] } }).message
      expect(message.content[0]!.content[0]!.text).toHaveLength(OUTPUT_BYTES)
    }
    const compactions = events.filter((e) => e.type === 'history/compaction')
    expect(compactions.length).toBeGreaterThan(10)

    // replay: every request the model got is exactly what the log up to that moment rebuilds
    for (const seen of [...first.seen, ...second.seen]) {
      const rebuilt = fitToolOutputs(historyItemsFromSession(events.slice(0, seen.events)), toolOutput, false)
      expect(JSON.stringify(rebuilt.map((item) => item.message))).toBe(JSON.stringify(seen.messages))
    }
  }, 240_000)
})
