import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { chunk } from './support/fixtures.ts'
import { collectUntilError, modelFor, simpleRequest } from './support/model.ts'
import { startReplayServer, type ReplayServer } from '../../../../test-support/replay-server.ts'
import { sse, sseText } from './support/sse.ts'

let server: ReplayServer
beforeEach(async () => {
  server = await startReplayServer()
})
afterEach(async () => {
  await server.close()
})

/** A chunk of an answer with `n: 2` carrying a delta of each choice (the index tells them apart). */
const twoChoices = (
  first: Record<string, unknown>,
  second: Record<string, unknown>,
  finish: string | null = null,
) => {
  const one = chunk(first, finish)
  const [choice] = one.choices as Record<string, unknown>[]
  return { ...one, choices: [choice, { ...choice, index: 1, delta: second }] }
}

describe('what a stream sends that is not the answer', () => {
  it('only choice 0 is read: the deltas of a second choice (n > 1) never join the answer', async () => {
    server.respond(
      sse(
        sseText([
          twoChoices({ role: 'assistant', content: 'Hel' }, { role: 'assistant', content: 'Bon' }),
          twoChoices(
            { content: 'lo.' },
            {
              tool_calls: [
                { index: 0, id: 'x', type: 'function', function: { name: 'rm', arguments: '{}' } },
              ],
            },
          ),
          twoChoices({}, {}, 'stop'),
        ]),
      ),
    )
    const response = await modelFor(server).step(simpleRequest)
    expect(response.message.content).toEqual([{ type: 'text', text: 'Hello.' }])
    expect(response.finishReason).toBe('stop')
  })
})

describe('tool calls a stream cannot be trusted with', () => {
  it('a tool call that ends without a function name is MALFORMED_STREAM, never yielded', async () => {
    server.respond(
      sse(
        sseText([
          chunk({
            tool_calls: [{ index: 0, id: 'c0', type: 'function', function: { arguments: '{"x":1}' } }],
          }),
          chunk({}, 'tool_calls'),
        ]),
      ),
    )
    const { parts, error } = await collectUntilError(modelFor(server).stream(simpleRequest))
    expect(parts.map((p) => p.type)).toEqual([])
    expect(error).toMatchObject({ code: 'MALFORMED_STREAM' })
    expect((error as Error).message).toBe(
      'malformed chat-completion chunk: tool call 0 ended without a function name',
    )
  })
})
