import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { userMessage, type ModelRequest, type ToolChoice } from '@deepseek-ai/dsh-llm'
import { chunk, textChunks, toolArgs, toolCallChunks } from './support/fixtures.ts'
import { collect, collectUntilError, modelFor, weatherTool } from './support/model.ts'
import { startReplayServer, type ReplayServer } from '../../../../test-support/replay-server.ts'
import { sse, sseText } from './support/sse.ts'

/**
 * Wire forms, from the OpenAI API reference for Chat Completions (`tool_choice`,
 * https://platform.openai.com/docs/api-reference/chat/create#chat-create-tool_choice), as the
 * official `openai` package 6.49.0 declares it (`ChatCompletionToolChoiceOption`,
 * resources/chat/completions/completions.d.ts): "`none` means the model will not call any tool …
 * `auto` means the model can pick … `required` means the model must call one or more tools.
 * Specifying a particular tool via `{"type": "function", "function": {"name": "my_function"}}`
 * forces the model to call that tool." Streaming: each `choices[].delta.tool_calls[]` entry carries
 * `index`, and `id`/`function.name` on the first chunk of a call, then `function.arguments`
 * fragments (the "Function calling" guide, "Streaming" section:
 * https://platform.openai.com/docs/guides/function-calling#streaming).
 */

let server: ReplayServer
beforeEach(async () => {
  server = await startReplayServer()
})
afterEach(async () => {
  await server.close()
})

const readFile = {
  name: 'read_file',
  description: 'Read a file.',
  parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
}

async function bodyFor(request: ModelRequest, options: Parameters<typeof modelFor>[1] = {}) {
  server.respond(sse(sseText(textChunks)))
  await modelFor(server, options).step(request)
  return server.requests.at(-1)!.body as Record<string, unknown>
}

const withTools = (toolChoice: ToolChoice): ModelRequest => ({
  messages: [userMessage('Hi')],
  tools: [weatherTool, readFile],
  toolChoice,
})

describe('toolChoice on the wire (tool_choice)', () => {
  it('T44: auto, none and required go as the strings, one named tool as { type: function, function: { name } }', async () => {
    expect((await bodyFor(withTools('auto'))).tool_choice).toBe('auto')
    expect((await bodyFor(withTools('none'))).tool_choice).toBe('none')
    expect((await bodyFor(withTools('required'))).tool_choice).toBe('required')
    expect((await bodyFor(withTools({ type: 'tool', name: 'read_file' }))).tool_choice).toEqual({
      type: 'function',
      function: { name: 'read_file' },
    })
  })

  it('T44: no tool_choice without a toolChoice, nor with no tools (the field is only allowed with tools)', async () => {
    expect(await bodyFor({ messages: [userMessage('Hi')], tools: [weatherTool] })).not.toHaveProperty(
      'tool_choice',
    )
    expect(
      await bodyFor({ messages: [userMessage('Hi')], tools: [], toolChoice: 'none' }),
    ).not.toHaveProperty('tool_choice')
  })

  it('T44: a named tool that is not offered, required without tools, or a bad shape is INVALID_REQUEST, nothing sent', async () => {
    const model = modelFor(server)
    const bad: [unknown, string][] = [
      [
        { type: 'tool', name: 'rm' },
        'names the tool "rm", which is not offered (offered: get_weather, read_file)',
      ],
      ['always', "must be 'auto', 'none', 'required' or { type: 'tool', name }"],
      [{ type: 'function', function: { name: 'read_file' } }, "must be 'auto', 'none', 'required'"],
    ]
    for (const [toolChoice, message] of bad) {
      const request = { ...withTools('auto'), toolChoice } as ModelRequest
      await expect(model.step(request)).rejects.toMatchObject({ code: 'INVALID_REQUEST' })
      await expect(model.step(request)).rejects.toThrow(message)
    }
    await expect(
      model.step({ messages: [userMessage('Hi')], tools: [], toolChoice: 'required' }),
    ).rejects.toThrow('"required" needs at least one tool offered')
    expect(server.requests).toHaveLength(0)
  })

  it('T44: a server created with toolChoice: false fails UNSUPPORTED_TOOL_CHOICE naming the choice; auto still goes', async () => {
    const model = modelFor(server, { toolChoice: false })
    await expect(model.step(withTools('required'))).rejects.toMatchObject({
      code: 'UNSUPPORTED_TOOL_CHOICE',
      message: expect.stringContaining('cannot honour toolChoice "required"'),
    })
    await expect(model.step(withTools({ type: 'tool', name: 'read_file' }))).rejects.toThrow(
      'cannot honour toolChoice tool "read_file"',
    )
    expect(server.requests).toHaveLength(0)
    expect((await bodyFor(withTools('auto'), { toolChoice: false })).tool_choice).toBe('auto')
    expect(() => modelFor(server, { toolChoice: 'yes' as never })).toThrow(
      'options.toolChoice must be a boolean',
    )
  })
})

describe('providerOptions', () => {
  it('the fields under the adapter provider name join the body over extraBody; other providers are ignored', async () => {
    const body = await bodyFor(
      {
        ...withTools('auto'),
        providerOptions: {
          deepseek: { temperature: 0.2, thinking: { type: 'disabled' } },
          anthropic: { x: 1 },
        },
      },
      { provider: 'deepseek', extraBody: { temperature: 1, top_p: 0.5 } },
    )
    expect(body).toMatchObject({ temperature: 0.2, top_p: 0.5, thinking: { type: 'disabled' } })
    expect(body).not.toHaveProperty('x')
  })

  it('a field the adapter writes (tool_choice, messages, …) is INVALID_REQUEST naming it', async () => {
    const model = modelFor(server, { provider: 'deepseek' })
    await expect(
      model.step({ ...withTools('auto'), providerOptions: { deepseek: { tool_choice: 'none' } } }),
    ).rejects.toThrow('request.providerOptions["deepseek"] must not set "tool_choice"')
    await expect(
      model.step({ ...withTools('auto'), providerOptions: { deepseek: 3 as never } }),
    ).rejects.toMatchObject({ code: 'INVALID_REQUEST' })
  })
})

describe('tool input streaming', () => {
  it('T45: function.arguments deltas arrive as tool-input-start / -delta / -end before each tool-call, piece for piece', async () => {
    const chunks = toolCallChunks()
    server.respond(sse(sseText(chunks)))
    const parts = await collect(
      modelFor(server).stream({ messages: [userMessage('Hi')], tools: [weatherTool] }),
    )
    // The pieces the server sent, per call, straight from the wire.
    const wire = new Map<number, string[]>()
    for (const c of chunks) {
      const calls = (
        c as { choices: { delta: { tool_calls?: { index: number; function: { arguments: string } }[] } }[] }
      ).choices[0]?.delta.tool_calls
      for (const call of calls ?? [])
        if (call.function.arguments !== '')
          (wire.get(call.index) ?? wire.set(call.index, []).get(call.index)!).push(call.function.arguments)
    }
    const names = ['get_weather', 'read_file', 'search']
    toolArgs.forEach((args, index) => {
      const id = `call_${index}_abc`
      const mine = parts.filter((p) => 'id' in p && p.id === id)
      expect(mine[0]).toEqual({ type: 'tool-input-start', id, name: names[index] })
      expect(mine.at(-1)).toEqual({ type: 'tool-input-end', id })
      const deltas = mine.slice(1, -1).map((p) => (p.type === 'tool-input-delta' ? p.delta : p.type))
      expect(deltas).toEqual(wire.get(index))
      expect(deltas.join('')).toBe(JSON.stringify(args))
      // the end comes right before that call's tool-call part
      const end = parts.findIndex((p) => p.type === 'tool-input-end' && p.id === id)
      expect(parts[end + 1]).toMatchObject({
        type: 'tool-call',
        call: { id, arguments: JSON.stringify(args) },
      })
    })
  })

  it('T45: arguments that arrive before the name are shown once the call can be named; a call without an id gets the id its tool-call carries', async () => {
    server.respond(
      sse(
        sseText([
          chunk({ tool_calls: [{ index: 0, function: { arguments: '{"pa' } }] }),
          chunk({ tool_calls: [{ index: 0, function: { name: 'read_file', arguments: 'th":"a"}' } }] }),
          chunk({}, 'tool_calls'),
        ]),
      ),
    )
    const parts = await collect(modelFor(server).stream({ messages: [userMessage('Hi')], tools: [readFile] }))
    const start = parts[0]
    if (start?.type !== 'tool-input-start') throw new Error(`got ${JSON.stringify(start)}`)
    expect(start.name).toBe('read_file')
    expect(parts.slice(1, 4)).toEqual([
      { type: 'tool-input-delta', id: start.id, delta: '{"path":"a"}' },
      { type: 'tool-input-end', id: start.id },
      {
        type: 'tool-call',
        call: { type: 'tool-call', id: start.id, name: 'read_file', arguments: '{"path":"a"}' },
      },
    ])
  })

  it('T45: a stream cut mid-arguments shows the start and deltas but no end and no call', async () => {
    server.respond(
      sse(
        sseText([
          chunk({
            tool_calls: [
              { index: 0, id: 'c', type: 'function', function: { name: 'read_file', arguments: '{"p' } },
            ],
          }),
        ]),
      ),
    )
    const { parts, error } = await collectUntilError(
      modelFor(server).stream({ messages: [userMessage('Hi')], tools: [readFile] }),
    )
    expect(error).toMatchObject({ code: 'INCOMPLETE_STREAM' })
    expect(parts).toEqual([
      { type: 'tool-input-start', id: 'c', name: 'read_file' },
      { type: 'tool-input-delta', id: 'c', delta: '{"p' },
    ])
  })
})
