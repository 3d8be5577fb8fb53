import { DONE, data } from '../transcript.ts'

/** vLLM's chunk envelope (`chatcmpl-<hex>` ids, `logprobs: null`, `stop_reason` on the finish). */
export function vllmChunk(
  id: string,
  delta: object,
  finish: string | null = null,
  extra: object = {},
): string {
  return data({
    id,
    object: 'chat.completion.chunk',
    created: 1_780_000_700,
    model: 'Qwen/Qwen3-32B',
    choices: [
      {
        index: 0,
        delta,
        logprobs: null,
        finish_reason: finish,
        ...(finish === null ? {} : { stop_reason: null }),
      },
    ],
    ...extra,
  })
}

/** The answer step a vLLM server streams after the tool results. */
export function vllmAnswer(id: string, text: string): string[] {
  return [
    vllmChunk(id, { role: 'assistant', content: '' }),
    vllmChunk(id, { content: text }),
    vllmChunk(id, { content: '' }, 'stop'),
    data({
      id,
      object: 'chat.completion.chunk',
      created: 1_780_000_701,
      model: 'Qwen/Qwen3-32B',
      choices: [],
      usage: { prompt_tokens: 240, total_tokens: 256, completion_tokens: 16 },
    }),
    DONE,
  ]
}
