import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { z } from 'zod'
import { createContext } from '@deepseek-ai/dsh-context'
import { createScriptedModel, textBlock, textOf, toolCallBlock, type ToolMessage } from '@deepseek-ai/dsh-llm'
import { createMemorySession, verifyToolPairs } from '@deepseek-ai/dsh-session'
import { defineTool, installTools } from '@deepseek-ai/dsh-tools'
import { createAgent, type ToolOutputPolicy } from '@deepseek-ai/dsh-agent-loop'
import { fitToolOutputs } from '../src/log/fit-tool-output.ts'

function run(output: string, options: { toolOutput?: ToolOutputPolicy; maxResultBytes?: number } = {}) {
  const ctx = createContext()
  installTools(ctx, options.maxResultBytes === undefined ? {} : { maxResultBytes: options.maxResultBytes })
  ctx.tools.register(
    defineTool({ name: 'dump', description: 'Dump.', parameters: z.object({}), execute: () => output }),
  )
  const session = createMemorySession()
  const model = createScriptedModel({
    turns: [[toolCallBlock({ id: 'c1', name: 'dump', args: {} })], [textBlock('done')]],
  })
  const agent = createAgent({
    ctx,
    name: 'out',
    model,
    session,
    ...(options.toolOutput === undefined ? {} : { toolOutput: options.toolOutput }),
  })
  const seen = () => textOf((model.requests[1]!.messages.at(-1) as ToolMessage).content[0]!.content)
  const stored = () => {
    const data = session.events().find((e) => e.type === 'tool/result')!.data as unknown as {
      message: ToolMessage
      error?: { code: string }
    }
    return { text: textOf(data.message.content[0]!.content), code: data.error?.code }
  }
  return { agent, session, seen, stored }
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

describe('what the model sees of a large result (toolOutput)', () => {
  it('T56: by default a result over 30 000 characters is cut to head and tail with a marker naming its seq; the session keeps it whole', async () => {
    const output = Array.from({ length: 5000 }, (_, i) => `line ${i}\n`).join('')
    expect(output.length).toBeGreaterThan(40_000)
    const { agent, session, seen, stored } = run(output)
    const result = await agent.run('go')
    expect(result.reason).toBe('completed')
    const text = seen()
    expect(text.startsWith(output.slice(0, 18_000))).toBe(true)
    expect(text.endsWith(output.slice(-12_000))).toBe(true)
    expect(text).not.toContain(output.slice(18_000, 18_100))
    expect(text).toMatch(
      new RegExp(
        `\\[… ${output.length - 30_000} of ${output.length} characters cut here \\(characters 18000–${output.length - 12_000}\\); the whole output is kept in the session \\(tool/result seq \\d+\\) …\\]`,
      ),
    )
    expect(stored()).toEqual({ text: output, code: undefined })
    expect(verifyToolPairs(session.events()).ok).toBe(true)
  })

  it('T56: a result at the limit is sent as stored; maxChars: Infinity never cuts', async () => {
    const at = run('y'.repeat(30_000))
    await at.agent.run('go')
    expect(at.seen()).toBe('y'.repeat(30_000))
    const off = run('z'.repeat(80_000), { toolOutput: { maxChars: Infinity } })
    await off.agent.run('go')
    expect(off.seen()).toBe('z'.repeat(80_000))
  })

  it('T56: toModelContent replaces the cut, with the tool name and the limit', async () => {
    const calls: string[] = []
    const { agent, seen, stored } = run('w'.repeat(500), {
      toolOutput: {
        maxChars: 100,
        toModelContent: ({ message, toolName, maxChars }) => {
          calls.push(`${toolName}:${maxChars}`)
          return [
            { type: 'text', text: `${toolName} wrote ${textOf(message.content[0]!.content).length} chars` },
          ]
        },
      },
    })
    await agent.run('go')
    expect(seen()).toBe('dump wrote 500 chars')
    expect(stored().text).toHaveLength(500)
    expect(calls[0]).toBe('dump:100')
  })

  it('T56: maxResultBytes stays the hard ceiling of what is stored: past it the call fails INVALID_TOOL_OUTPUT; under it, it is stored whole and cut', async () => {
    const over = run('v'.repeat(50_000), { maxResultBytes: 40_000 })
    await over.agent.run('go')
    expect(over.stored().code).toBe('INVALID_TOOL_OUTPUT')
    const under = run('v'.repeat(35_000), { maxResultBytes: 40_000 })
    await under.agent.run('go')
    expect(under.stored().text).toHaveLength(35_000)
    expect(under.seen().length).toBeLessThan(31_000)
  })

  it('T56: the cut keeps a prefix and a suffix of at most maxChars characters and never splits a surrogate pair', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme', minLength: 150, maxLength: 600 }),
        fc.integer({ min: 100, max: 140 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (text, maxChars, headShare) => {
          const message: ToolMessage = {
            role: 'tool',
            content: [
              { type: 'tool-result', callId: 'c1', isError: false, content: [{ type: 'text', text }] },
            ],
          }
          const [item] = fitToolOutputs([{ seq: 7, message }], { maxChars, headShare }, true)
          const cut = textOf((item!.message as ToolMessage).content[0]!.content)
          if (text.length <= maxChars) return expect(cut).toBe(text)
          const match =
            /^([\s\S]*)\n\n\[… (\d+) of (\d+) characters cut here \(characters (\d+)–(\d+)\); call read_tool_output with \{"callId": "c1", "offset": (\d+)\} to read the cut part …\]\n\n([\s\S]*)$/.exec(
              cut,
            )
          expect(match).not.toBeNull()
          const [, head, cutCount, total, from, to, offset, tail] = match!
          expect(text.startsWith(head!)).toBe(true)
          expect(text.endsWith(tail!)).toBe(true)
          expect(Number(total)).toBe(text.length)
          expect(Number(from)).toBe(head!.length)
          expect(Number(offset)).toBe(head!.length)
          expect(Number(to)).toBe(text.length - tail!.length)
          expect(Number(cutCount)).toBe(Number(to) - Number(from))
          expect(head!.length + tail!.length).toBeLessThanOrEqual(maxChars)
          expect(LONE_SURROGATE.test(head!) || LONE_SURROGATE.test(tail!)).toBe(LONE_SURROGATE.test(text))
        },
      ),
      { numRuns: 300 },
    )
  })

  it('T56: a bad toolOutput option is refused at createAgent, naming it', () => {
    const ctx = createContext()
    installTools(ctx)
    const model = createScriptedModel({ turns: [] })
    const make = (toolOutput: unknown) => () =>
      createAgent({
        ctx,
        name: 'x',
        model,
        session: createMemorySession(),
        toolOutput: toolOutput as ToolOutputPolicy,
      })
    expect(make({ maxChars: 5 })).toThrow(
      /options\.toolOutput\.maxChars must be an integer ≥ 100 or Infinity, got .*5/,
    )
    expect(make({ headShare: 2 })).toThrow(/options\.toolOutput\.headShare must be a number in \[0, 1\]/)
    expect(make({ toModelContent: 'x' })).toThrow(/options\.toolOutput\.toModelContent must be a function/)
  })
})
