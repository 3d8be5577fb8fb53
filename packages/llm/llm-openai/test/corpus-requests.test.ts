import { describe, expect, it } from 'vitest'
import { chatCompletionsRules, vllmRules } from './corpus/request-rules.ts'
import { runCorpusAgent } from './corpus/replay-corpus.ts'
import { transcript as azure } from './corpus/transcripts/azure-content-filter.ts'
import { transcript as deepseekEmpty } from './corpus/transcripts/deepseek-empty-reasoning.ts'
import { transcript as deepseekThinking } from './corpus/transcripts/deepseek-thinking-tool-calls.ts'
import { transcript as groq } from './corpus/transcripts/groq-x-groq-usage.ts'
import { transcript as mistral } from './corpus/transcripts/mistral-strict-fields.ts'
import type { Transcript } from './corpus/transcript.ts'
import type { ReceivedRequest } from '../../../../test-support/replay-server.ts'

// The request side: each replay server refuses what its provider documents refusing, so the
// corpus passing means the adapter's defaults send nothing a provider rejects. Here the checks
// are shown to bite: the old defaults (or a forced option) fail the way the provider fails.

async function turnError(transcript: Transcript): Promise<{ error: unknown; requests: number }> {
  const run = await runCorpusAgent(transcript)
  try {
    return { error: run.error, requests: run.server.requests.length }
  } finally {
    await run.server.close()
  }
}

const received = (body: Record<string, unknown>, path = '/v1/chat/completions'): ReceivedRequest => ({
  method: 'POST',
  path,
  headers: { authorization: 'Bearer k' },
  body,
  remotePort: undefined,
  closed: Promise.resolve(),
})

describe('provider corpus: what each provider refuses', () => {
  it("Groq: `reasoning_content` on an assistant message (the old default, 'tool-turns' everywhere) fails the turn at step 2 with Groq's 400", async () => {
    const { error, requests } = await turnError({
      ...groq,
      options: { reasoningReplay: 'tool-turns', reasoningField: 'reasoning_content' },
    })
    expect(requests).toBe(2)
    expect(error).toMatchObject({ code: 'BAD_REQUEST', status: 400 })
    expect((error as Error).message).toContain("property 'reasoning_content' is unsupported")
  }, 30_000)

  it("Mistral: `reasoning_content` is a 422 extra_forbidden, and the error names the field from the 422's `message` object", async () => {
    const { error } = await turnError({ ...mistral, options: { reasoningReplay: 'always' } })
    expect(error).toMatchObject({ code: 'BAD_REQUEST', status: 422 })
    expect((error as Error).message).toContain(
      'body.messages.2.assistant.reasoning_content: Extra inputs are not permitted',
    )
  }, 30_000)

  it("DeepSeek: a tool-call message without `reasoning_content` (even with no reasoning) is DeepSeek's 400 naming the message", async () => {
    const { error } = await turnError({ ...deepseekEmpty, options: { reasoningReplay: 'returned' } })
    expect(error).toMatchObject({ code: 'BAD_REQUEST', status: 400 })
    expect((error as Error).message).toContain(
      'Missing `reasoning_content` field in the assistant message at message index 2',
    )
  }, 30_000)

  it("DeepSeek: a model without image understanding refuses `image_url`; its default keeps a tool result's image as a text note", async () => {
    const withImage: Transcript = { ...deepseekThinking, toolImage: true }
    const forced = await turnError({ ...withImage, options: { toolResultImages: 'user-message' } })
    expect(forced.error).toMatchObject({ code: 'BAD_REQUEST' })
    expect((forced.error as Error).message).toContain('unknown variant `image_url`, expected `text`')
    const run = await runCorpusAgent(withImage)
    try {
      expect(run.error).toBeUndefined()
      const messages = run.server.requests[1]!.body.messages as Record<string, unknown>[]
      expect(messages.find((m) => m.tool_call_id === 'call_01_t0Ky0')).toMatchObject({
        content: 'Tokyo: 09:30\n\n[image omitted: image/png]',
      })
    } finally {
      await run.server.close()
    }
  }, 30_000)

  it('Azure: a bearer token instead of `api-key` is a 401 (the adapter sends `api-key` on Azure hosts)', async () => {
    // The same deployment path behind a host the adapter does not know as Azure's.
    const { error } = await turnError({
      ...azure,
      baseUrl: azure.baseUrl.replace('contoso-eastus.openai.azure.com', 'llm.example.com'),
    })
    expect(error).toMatchObject({ code: 'AUTHENTICATION_FAILED', status: 401 })
    expect((error as Error).message).toContain('Access denied due to invalid subscription key')
  }, 30_000)

  it("OpenAI's tool-message rules: every call answered before anything else, no image in a tool message", () => {
    const call = { id: 'c1', type: 'function', function: { name: 'get_time', arguments: '{}' } }
    const base = { model: 'gpt-4.1', stream: true }
    expect(
      chatCompletionsRules(
        received({
          ...base,
          messages: [
            { role: 'user', content: 'q' },
            { role: 'assistant', content: null, tool_calls: [call] },
            { role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:,' } }] },
            { role: 'tool', tool_call_id: 'c1', content: 'x' },
          ],
        }),
      ),
    ).toMatchObject({
      status: 400,
      body: { error: { message: expect.stringContaining('did not have response messages: c1') } },
    })
    expect(
      chatCompletionsRules(
        received({
          ...base,
          messages: [
            { role: 'user', content: 'q' },
            { role: 'assistant', content: null, tool_calls: [call] },
            {
              role: 'tool',
              tool_call_id: 'c1',
              content: [{ type: 'image_url', image_url: { url: 'data:,' } }],
            },
          ],
        }),
      ),
    ).toMatchObject({
      status: 400,
      body: { error: { message: expect.stringContaining("role 'tool' contains an image URL") } },
    })
    expect(
      vllmRules(received({ ...base, stream: false, stream_options: { include_usage: true }, messages: [] })),
    ).toMatchObject({ status: 400 })
  })
})
