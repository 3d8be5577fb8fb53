import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { checkReadmeExample, expectEveryBlockIsAnExample } from '../../../../test-support/readme-example.ts'
import { startReplayServer, type ReplayServer } from '../../../../test-support/replay-server.ts'
import { sse, sseText } from './support/sse.ts'
import { answerStep, toolStep } from './support/turns.ts'

let server: ReplayServer
const saved = { ...process.env }
beforeEach(async () => {
  server = await startReplayServer()
})
afterEach(async () => {
  await server.close()
  for (const name of ['DSH_BASE_URL', 'DSH_API_KEY', 'DSH_MODEL']) {
    if (saved[name] === undefined) Reflect.deleteProperty(process.env, name)
    else process.env[name] = saved[name]
  }
})

describe('README', () => {
  it('shows the example verbatim; run against the local server (through DSH_*), it prints what its comments say', async () => {
    process.env.DSH_BASE_URL = server.baseUrl
    process.env.DSH_API_KEY = 'sk-readme'
    process.env.DSH_MODEL = 'deepseek-chat'
    server.respond(
      sse(
        sseText(
          toolStep('The user wants the weather in Hangzhou.', [
            { id: 'call_w', name: 'get_weather', args: { city: 'Hangzhou' } },
          ]),
        ),
      ),
      sse(sseText(answerStep('It is 21°C and sunny in Hangzhou.'))),
    )
    await checkReadmeExample({
      packageUrl: new URL('../', import.meta.url),
      load: () => import('../examples/readme-example.ts'),
      lines: 3,
    })
    expect(server.requests).toHaveLength(2)
    const [first, second] = server.requests
    expect(first!.headers.authorization).toBe('Bearer sk-readme')
    expect(first!.body.tools).toEqual([
      {
        type: 'function',
        function: {
          name: 'get_weather',
          description: 'Current weather for a city.',
          parameters: expect.objectContaining({ type: 'object', properties: { city: { type: 'string' } } }),
        },
      },
    ])
    // The second step carries the call with its reasoning (a tool was called) and its result.
    expect(second!.body.messages).toEqual([
      { role: 'user', content: 'What is the weather in Hangzhou?' },
      {
        role: 'assistant',
        content: null,
        reasoning_content: 'The user wants the weather in Hangzhou.',
        tool_calls: [
          {
            id: 'call_w',
            type: 'function',
            function: { name: 'get_weather', arguments: '{"city":"Hangzhou"}' },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'call_w', content: 'Hangzhou: 21°C, sunny' },
    ])
  })

  it('T72: the audio example prints what its comments say', async () => {
    await checkReadmeExample({
      packageUrl: new URL('../', import.meta.url),
      example: 'examples/audio-example.ts',
      load: () => import('../examples/audio-example.ts'),
      lines: 4,
    })
  })

  it('every runnable code block is an example file', () => {
    expectEveryBlockIsAnExample(new URL('../', import.meta.url), [
      'examples/readme-example.ts',
      'examples/audio-example.ts',
    ])
  })
})
