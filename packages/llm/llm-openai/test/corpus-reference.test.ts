import OpenAI from 'openai'
import { afterEach, describe, expect, it } from 'vitest'
import { corpus } from './corpus/corpus.ts'
import {
  API_KEY,
  QUESTION,
  TOOL_SCHEMAS,
  corpusModel,
  corpusRequest,
  startCorpusServer,
} from './corpus/replay-corpus.ts'
import type { Assembly, Transcript } from './corpus/transcript.ts'
import type { ReplayServer } from '../../../../test-support/replay-server.ts'

// The official `openai` client (its stream helper, which assembles a final completion) on the same
// transcripts, as a reference: where it agrees with the adapter, and where it does not (said why in
// each transcript). The request it sends is the adapter's: same model, same stream options, the
// key in the same header.

const servers: ReplayServer[] = []
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close()
})

async function referenceOf(transcript: Transcript): Promise<Assembly> {
  // What the adapter sends, to send the same.
  const adapterServer = await startCorpusServer(transcript)
  servers.push(adapterServer)
  await corpusModel(transcript, adapterServer)
    .step(corpusRequest)
    .catch(() => undefined)
  const sent = adapterServer.requests[0]!
  const server = await startCorpusServer(transcript)
  servers.push(server)
  const base = new URL(transcript.baseUrl)
  const client = new OpenAI({
    apiKey: API_KEY,
    baseURL: `${server.baseUrl}${base.pathname.replace(/\/+$/, '')}`,
    defaultQuery: Object.fromEntries(base.searchParams),
    ...(sent.headers['api-key'] === undefined ? {} : { defaultHeaders: { 'api-key': API_KEY } }),
    maxRetries: 0,
  })
  const stream = client.chat.completions.stream(
    {
      model: String(sent.body.model),
      messages: [
        { role: 'system', content: 'Answer with the tools.' },
        { role: 'user', content: QUESTION },
      ],
      tools: TOOL_SCHEMAS.map((tool) => ({
        type: 'function' as const,
        function: { name: tool.name, description: tool.description, parameters: { ...tool.parameters } },
      })),
      ...(sent.body.stream_options === undefined ? {} : { stream_options: { include_usage: true } }),
    },
    // A server that never ends the body would hold the official client forever: it is cut after 3 s.
    transcript.steps.some((step) => step.kind === 'sse' && step.keepOpen === true)
      ? { signal: AbortSignal.timeout(3000) }
      : {},
  )
  const completion = await stream.finalChatCompletion()
  const message = completion.choices[0]?.message
  return {
    calls: (message?.tool_calls ?? []).map((call) =>
      call.type === 'function'
        ? { id: call.id, name: call.function.name, arguments: call.function.arguments }
        : { id: call.id, name: '?', arguments: '?' },
    ),
    text: message?.content ?? '',
    usage: [completion.usage?.prompt_tokens ?? 0, completion.usage?.completion_tokens ?? 0],
  }
}

describe('provider corpus: the official openai client as a reference', () => {
  for (const transcript of corpus) {
    it(`${transcript.id} (${transcript.provider}): ${transcript.reference.kind}`, async () => {
      const reference = transcript.reference
      if (reference.kind === 'throws') {
        const error = await referenceOf(transcript).then(
          () => undefined,
          (e: unknown) => e,
        )
        expect(error, reference.because).toBeInstanceOf(Error)
        expect((error as Error).message).toContain(reference.message)
        return
      }
      const assembled = await referenceOf(transcript)
      const expected = transcript.expected
      if (expected.kind === 'error') {
        // The adapter fails where the official client hands back a completion: it parsed, so it differs.
        expect(reference.kind, 'a stream the adapter refuses cannot agree').toBe('differs')
        if (reference.kind === 'differs') expect(assembled, reference.because).toEqual(reference.assembles)
        return
      }
      const adapter: Assembly = {
        calls: expected.calls.map((call) => ({
          id: String(call.id),
          name: call.name,
          arguments: call.arguments,
        })),
        text: expected.text ?? '',
        usage: [expected.usage.inputTokens, expected.usage.outputTokens],
      }
      if (reference.kind === 'agrees') expect(assembled).toEqual(adapter)
      else {
        expect(assembled, reference.because).toEqual(reference.assembles)
        expect(assembled).not.toEqual(adapter)
      }
    })
  }
})
