import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, bench, describe } from 'vitest'
import { createOpenAICompatibleModel } from '@deepseek-ai/dsh-llm-openai'
import { userMessage } from '@deepseek-ai/dsh-llm'

// A long recorded-shape answer: 1,500 reasoning deltas, 1,500 text deltas, then 8 tool calls whose
// arguments arrive in 100 pieces each — about 3,800 SSE events, 0.9 MB.
function recordedStream(): Uint8Array {
  const base = { id: 'x', object: 'chat.completion.chunk', created: 1, model: 'deepseek-chat' }
  const chunk = (delta: unknown, finish: string | null = null) =>
    `data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] })}\n\n`
  let text = ''
  for (let i = 0; i < 1500; i++) text += chunk({ content: null, reasoning_content: `thought ${i} ` })
  for (let i = 0; i < 1500; i++) text += chunk({ content: `word${i} ` })
  for (let call = 0; call < 8; call++) {
    text += chunk({
      tool_calls: [
        { index: call, id: `call_${call}`, type: 'function', function: { name: 'edit', arguments: '' } },
      ],
    })
    const args = JSON.stringify({
      path: `src/file${call}.ts`,
      text: 'const x = 1 // ünïcödé 世界\n'.repeat(40),
    })
    const size = Math.ceil(args.length / 100)
    for (let at = 0; at < args.length; at += size)
      text += chunk({ tool_calls: [{ index: call, function: { arguments: args.slice(at, at + size) } }] })
  }
  text += chunk({}, 'tool_calls')
  text += `data: ${JSON.stringify({ ...base, choices: [], usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } })}\n\n`
  text += 'data: [DONE]\n\n'
  return Buffer.from(text, 'utf8')
}

const bytes = recordedStream()
// Network-sized reads: 16 KiB pieces, cut wherever they fall.
const pieces: Uint8Array[] = []
for (let at = 0; at < bytes.length; at += 16_384) pieces.push(bytes.subarray(at, at + 16_384))

const body = (): ReadableStream<Uint8Array> => {
  let i = 0
  return new ReadableStream({
    pull(controller) {
      if (i < pieces.length) controller.enqueue(pieces[i++]!)
      else controller.close()
    },
  })
}

const inMemory = createOpenAICompatibleModel({
  apiKey: 'k',
  model: 'deepseek-chat',
  env: {},
  baseUrl: 'http://127.0.0.1:9',
  fetch: async () => new Response(body(), { headers: { 'content-type': 'text/event-stream' } }),
})
const request = { messages: [userMessage('go')], tools: [] }

/** The least any reader must do: decode, cut at blank lines, JSON.parse each event. */
async function baseline(): Promise<number> {
  const reader = body().getReader()
  const decoder = new TextDecoder()
  let buffer = ''
  let parsed = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    buffer += decoder.decode(value, { stream: true })
    let end: number
    while ((end = buffer.indexOf('\n\n')) !== -1) {
      const data = buffer.slice(6, end)
      buffer = buffer.slice(end + 2)
      if (data !== '[DONE]') {
        JSON.parse(data)
        parsed++
      }
    }
  }
  return parsed
}

let server: Server
let overSocket: ReturnType<typeof createOpenAICompatibleModel>
beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume()
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      res.end(bytes)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  overSocket = createOpenAICompatibleModel({
    apiKey: 'k',
    model: 'deepseek-chat',
    env: {},
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
  })
})
afterAll(async () => {
  server.closeAllConnections()
  await new Promise((resolve) => server.close(resolve))
})

describe('one 0.9 MB streamed step (3,800 events, 8 tool calls)', () => {
  const options = { time: 2000 }
  bench(
    'baseline: decode + split + JSON.parse only',
    async () => {
      await baseline()
    },
    options,
  )
  bench(
    'adapter: model.step, in-memory body',
    async () => {
      await inMemory.step(request)
    },
    options,
  )
  bench(
    'adapter: model.step over 127.0.0.1',
    async () => {
      await overSocket.step(request)
    },
    options,
  )
})
