import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { z } from 'zod'
import { createContext, createMemoryLogger } from '@deepseek-ai/dsh-context'
import { createScriptedModel, textBlock, type ToolCallBlock } from '@deepseek-ai/dsh-llm'
import { createMemorySession, verifyToolPairs, type ToolCallEventData } from '@deepseek-ai/dsh-session'
import { defineTool, installTools, resolveToolRuntimeScheduler } from '@deepseek-ai/dsh-tools'
import {
  answerInterruptedCalls,
  createAgent,
  historyFromSession,
  repairJsonSyntax,
  type RepairToolCall,
} from '@deepseek-ai/dsh-agent-loop'

const raw = (id: string, name: string, text: string): ToolCallBlock => ({
  type: 'tool-call',
  id,
  name,
  arguments: text,
})

/** An agent over `read` (idempotent) and `write` (not), recording what each body got. */
function setup(
  turns: readonly (readonly ToolCallBlock[])[],
  options: { repairToolCall?: RepairToolCall; eager: boolean },
) {
  const logger = createMemoryLogger()
  const ctx = createContext({ logger })
  installTools(ctx)
  const ran: { tool: string; args: unknown }[] = []
  ctx.tools.register(
    defineTool({
      name: 'read',
      description: 'Read.',
      parameters: z.object({ path: z.string(), lines: z.number().optional() }),
      idempotent: true,
      isConcurrencySafe: () => true,
      execute: (args) => {
        ran.push({ tool: 'read', args })
        return `read ${args.path}`
      },
    }),
  )
  ctx.tools.register(
    defineTool({
      name: 'write',
      description: 'Write.',
      parameters: z.object({ path: z.string(), text: z.string() }),
      execute: (args) => {
        ran.push({ tool: 'write', args })
        return 'written'
      },
    }),
  )
  const session = createMemorySession()
  const model = createScriptedModel({ turns: [...turns, [textBlock('done')]] })
  const agent = createAgent({
    ctx,
    name: 'repair',
    model,
    session,
    eagerToolExecution: options.eager,
    ...(options.repairToolCall === undefined ? {} : { repairToolCall: options.repairToolCall }),
  })
  const calls = () =>
    session
      .events()
      .filter((e) => e.type === 'tool/call')
      .map((e) => e.data as unknown as ToolCallEventData)
  const results = () =>
    session
      .events()
      .filter((e) => e.type === 'tool/result')
      .map(
        (e) =>
          e.data as {
            message: { content: { content: { text: string }[]; isError: boolean }[] }
            error?: { code: string }
          },
      )
  return { agent, session, model, ran, calls, results, logger }
}

/** The four mistakes `repairJsonSyntax` is for, applied to the JSON text of `value`. */
const MISTAKES = {
  'trailing comma': (json: string) => json.replace(/}$/, ',}'),
  'single quotes': (json: string) => json.replaceAll('"', "'"),
  'fenced JSON': (json: string) => '```json\n' + json + '\n```',
  'truncated object': (json: string) => json.slice(0, -1),
} as const

for (const eager of [false, true]) {
  const mode = eager ? 'streamed (eager)' : 'plain'
  describe(`repairToolCall, ${mode} steps`, () => {
    it('T54: repairJsonSyntax mends each common mistake for an idempotent tool: the body gets the intended arguments, the tool/call keeps both texts', async () => {
      // generated paths (no quotes or backslashes, which single-quoting would change the meaning of)
      const path = fc.stringMatching(/^[a-z0-9_./-]{1,24}$/)
      await fc.assert(
        fc.asyncProperty(
          path,
          fc.integer({ min: 0, max: 10_000 }),
          fc.constantFrom(...(Object.keys(MISTAKES) as (keyof typeof MISTAKES)[])),
          async (p, lines, mistake) => {
            const intended = { path: p, lines }
            const text = MISTAKES[mistake](JSON.stringify(intended))
            expect(() => JSON.parse(text) as unknown).toThrow()
            const { agent, session, ran, calls } = setup([[raw('c1', 'read', text)]], {
              repairToolCall: repairJsonSyntax(),
              eager,
            })
            await agent.run('go')
            expect(ran).toEqual([{ tool: 'read', args: intended }])
            const [call] = calls()
            expect(call!.arguments).toBe(text)
            expect(JSON.parse(call!.repaired!.arguments)).toEqual(intended)
            expect(call!.repaired!.by).toBe('repairJsonSyntax')
            expect(verifyToolPairs(session.events()).ok).toBe(true)
          },
        ),
        { numRuns: 40 },
      )
    })

    it('T54: repairJsonSyntax leaves a tool that is not idempotent alone by default (INVALID_ARGUMENTS), and mends it when named', async () => {
      const text = "{'path': 'a', 'text': 'b',}"
      const off = setup([[raw('c1', 'write', text)]], { repairToolCall: repairJsonSyntax(), eager })
      await off.agent.run('go')
      expect(off.ran).toEqual([])
      expect(off.results()[0]!.error?.code).toBe('INVALID_ARGUMENTS')
      expect(off.calls()[0]!.repaired).toBeUndefined()
      const on = setup([[raw('c1', 'write', text)]], {
        repairToolCall: repairJsonSyntax({ tools: ['write'] }),
        eager,
      })
      await on.agent.run('go')
      expect(on.ran).toEqual([{ tool: 'write', args: { path: 'a', text: 'b' } }])
    })

    it('T54: a hook mends an unknown tool name and a schema failure; the history gives the provider each call as it ran', async () => {
      const seen: string[] = []
      const hook: RepairToolCall = ({ call, error, tools, definition }) => {
        seen.push(
          `${call.id}:${error.problem}:${definition?.name ?? '-'}:${tools.map((t) => t.name).join('+')}`,
        )
        if (error.problem === 'unknown-tool') return { name: 'read', by: 'rename', arguments: call.arguments }
        if (error.problem === 'invalid') return { arguments: { path: 'fixed' } }
        return undefined
      }
      const { agent, session, ran, calls, model } = setup(
        [[raw('c1', 'reed', '{"path":"x"}'), raw('c2', 'read', '{"path":7}')]],
        { repairToolCall: hook, eager },
      )
      await agent.run('go')
      expect(seen).toEqual(['c1:unknown-tool:-:read+write', 'c2:invalid:read:read+write'])
      expect(ran).toEqual([
        { tool: 'read', args: { path: 'x' } },
        { tool: 'read', args: { path: 'fixed' } },
      ])
      expect(calls().map((c) => [c.name, c.arguments, c.repaired])).toEqual([
        ['reed', '{"path":"x"}', { name: 'read', arguments: '{"path":"x"}', by: 'rename' }],
        ['read', '{"path":7}', { name: 'read', arguments: '{"path":"fixed"}', by: 'repairToolCall' }],
      ])
      const sent = model.requests[1]!.messages.find((m) => m.role === 'assistant')!.content as ToolCallBlock[]
      expect(sent.map((b) => [b.id, b.name, b.arguments])).toEqual([
        ['c1', 'read', '{"path":"x"}'],
        ['c2', 'read', '{"path":"fixed"}'],
      ])
      // the session's assistant message keeps what the model wrote
      const stored = session.events().find((e) => e.type === 'assistant/message')!.data as unknown as {
        message: { content: ToolCallBlock[] }
      }
      expect(stored.message.content.map((b) => b.name)).toEqual(['reed', 'read'])
      expect(JSON.stringify(historyFromSession(session.events()).slice(0, 3))).toBe(
        JSON.stringify(model.requests[1]!.messages.slice(0, 3)),
      )
      expect(verifyToolPairs(session.events()).ok).toBe(true)
    })

    it('T54: a repair that still fails, or a hook that throws, is not used: the call fails as it would have, once, and the log verifies', async () => {
      let n = 0
      const hook: RepairToolCall = () => {
        n++
        if (n === 1) return { arguments: '{"path": 1}' }
        throw new Error('hook broke')
      }
      const { agent, session, ran, results, calls, logger } = setup(
        [[raw('c1', 'read', '{"path": 2}'), raw('c2', 'read', '{"path": 3}')]],
        { repairToolCall: hook, eager },
      )
      await agent.run('go')
      expect(ran).toEqual([])
      expect(results().map((r) => r.error?.code)).toEqual(['INVALID_ARGUMENTS', 'INVALID_ARGUMENTS'])
      expect(calls().map((c) => c.repaired)).toEqual([undefined, undefined])
      const messages = logger.entries.map((e) => e.message).join('\n')
      expect(messages).toContain('still fails')
      expect(messages).toContain('repairToolCall threw')
      expect(verifyToolPairs(session.events()).ok).toBe(true)
    })

    it('T54: an asynchronous repair keeps model order: the calls after it start and are recorded after it', async () => {
      const order: string[] = []
      const hook: RepairToolCall = async ({ call }) => {
        await new Promise((resolve) => setTimeout(resolve, 30))
        order.push(`repaired ${call.id}`)
        return { arguments: '{"path":"late"}' }
      }
      const { agent, session, ran, calls } = setup(
        [
          [
            raw('c1', 'read', '{"path":'),
            raw('c2', 'read', '{"path":"b"}'),
            raw('c3', 'read', '{"path":"c"}'),
          ],
        ],
        { repairToolCall: hook, eager },
      )
      await agent.run('go')
      expect(order).toEqual(['repaired c1'])
      expect(ran.map((r) => (r.args as { path: string }).path)).toEqual(['late', 'b', 'c'])
      expect(calls().map((c) => c.callId)).toEqual(['c1', 'c2', 'c3'])
      expect(verifyToolPairs(session.events()).ok).toBe(true)
    })

    it('T55: an unparsable call with no repair is recorded with replayArguments {} and sent back as {}; its result quotes the text', async () => {
      const text = '{"path": "a", "lines": '
      const { agent, session, model, calls, results } = setup([[raw('c1', 'read', text)]], { eager })
      await agent.run('go')
      expect(calls()[0]!.replayArguments).toBe('{}')
      expect(calls()[0]!.arguments).toBe(text)
      const sent = model.requests[1]!.messages.find((m) => m.role === 'assistant')!
        .content[0] as ToolCallBlock
      expect(sent.arguments).toBe('{}')
      expect(results()[0]!.error?.code).toBe('INVALID_ARGUMENTS')
      expect(results()[0]!.message.content[0]!.content[0]!.text).toContain(text)
      // a schema failure is valid JSON: it is sent back as the model wrote it
      const schema = setup([[raw('c1', 'read', '{"path": 5}')]], { eager })
      await schema.agent.run('go')
      expect(schema.calls()[0]!.replayArguments).toBeUndefined()
      const again = schema.model.requests[1]!.messages.find((m) => m.role === 'assistant')!
        .content[0] as ToolCallBlock
      expect(again.arguments).toBe('{"path": 5}')
      expect(verifyToolPairs(session.events()).ok).toBe(true)
    })
  })
}

describe("the loop's check of a call before it runs", () => {
  /** An agent over `count`, whose schema counts how often it runs; `hook` as `repairToolCall`. */
  const counting = (turns: readonly (readonly ToolCallBlock[])[], hook?: RepairToolCall) => {
    const ctx = createContext({ logger: createMemoryLogger() })
    installTools(ctx)
    let validations = 0
    ctx.tools.register(
      defineTool({
        name: 'count',
        description: 'Counts its validations.',
        parameters: z.object({ n: z.number() }).refine(() => ++validations > 0),
        isConcurrencySafe: () => true,
        execute: ({ n }) => n,
      }),
    )
    const session = createMemorySession()
    const agent = createAgent({
      ctx,
      name: 'check',
      model: createScriptedModel({ turns: [...turns, [textBlock('done')]] }),
      session,
      eagerToolExecution: false,
      ...(hook === undefined ? {} : { repairToolCall: hook }),
    })
    return { agent, session, validations: () => validations }
  }

  it('T54: without repairToolCall the loop only parses a call before it runs: its schema runs once, in the pipeline', async () => {
    const calls = [raw('c1', 'count', '{"n":1}'), raw('c2', 'count', '{"n":2}')]
    const plain = counting([calls])
    await plain.agent.run('go')
    expect(plain.validations()).toBe(2)
    // with a hook the loop checks the schema too (a schema failure is repairable)
    const hooked = counting([calls], () => undefined)
    await hooked.agent.run('go')
    expect(hooked.validations()).toBe(4)
  })

  it('T55: a call to an unknown tool whose text does not parse is replayed as {} too, with or without a hook', async () => {
    for (const hook of [undefined, () => undefined]) {
      const { agent, session } = counting([[raw('c1', 'missing', '{"n": ')]], hook)
      await agent.run('go')
      const [call] = session
        .events()
        .filter((e) => e.type === 'tool/call')
        .map((e) => e.data as unknown as ToolCallEventData)
      expect(call!.replayArguments, hook === undefined ? 'no hook' : 'hook').toBe('{}')
      const sent = historyFromSession(session.events()).find((m) => m.role === 'assistant')!
        .content[0] as ToolCallBlock
      expect(JSON.parse(sent.arguments)).toEqual({})
      expect(verifyToolPairs(session.events()).ok).toBe(true)
    }
  })
})

describe('calls a crashed process never recorded', () => {
  it('T55: resume records an unparsable call of the last message with replayArguments {}, so the history it rebuilds parses', () => {
    const session = createMemorySession()
    session.append('turn/start', { turn: 1 })
    session.append('user/message', { turn: 1, message: { role: 'user', content: [textBlock('go')] } })
    session.append('assistant/message', {
      turn: 1,
      step: 1,
      message: {
        role: 'assistant',
        content: [raw('c1', 'read', "{'path': 'a'"), raw('c2', 'read', '{"path":"b"}')],
      },
      finishReason: 'tool-calls',
      usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
    })
    const ctx = createContext()
    installTools(ctx)
    expect(answerInterruptedCalls({ session, scheduler: resolveToolRuntimeScheduler(ctx.tools) })).toBe(2)
    const calls = session
      .events()
      .filter((e) => e.type === 'tool/call')
      .map((e) => e.data as unknown as ToolCallEventData)
    expect(calls.map((c) => c.replayArguments)).toEqual(['{}', undefined])
    const sent = historyFromSession(session.events()).find((m) => m.role === 'assistant')!
      .content as ToolCallBlock[]
    expect(sent.map((b) => JSON.parse(b.arguments) as unknown)).toEqual([{}, { path: 'b' }])
    expect(verifyToolPairs(session.events()).ok).toBe(true)
  })
})
