import { azureRules } from '../request-rules.ts'
import { DONE, data, type Transcript } from '../transcript.ts'

const filters = {
  hate: { filtered: false, severity: 'safe' },
  self_harm: { filtered: false, severity: 'safe' },
  sexual: { filtered: false, severity: 'safe' },
  violence: { filtered: false, severity: 'safe' },
}
const chunk = (choices: object[], usage: object | null = null) =>
  data({
    choices,
    created: 1_780_000_400,
    id: 'chatcmpl-Az9pLm2Qw8Rt4Yv6Xb0Nc3Dk7',
    model: 'gpt-4o-2024-11-20',
    object: 'chat.completion.chunk',
    system_fingerprint: 'fp_ee1d74bde0',
    usage,
  })
const choice = (delta: object | undefined, finish: string | null = null, extra: object = {}) => ({
  ...extra,
  ...(delta === undefined ? {} : { delta }),
  finish_reason: finish,
  index: 0,
  logprobs: null,
})

export const transcript: Transcript = {
  id: 'azure-content-filter',
  provider: 'Azure OpenAI',
  quirk:
    'a first chunk with `choices: []` and `prompt_filter_results`, content-filter annotations on choices, a trailing annotation-only choice without `delta`; the key in `api-key`, `api-version` in the query',
  sources: [
    'https://learn.microsoft.com/en-us/azure/ai-foundry/openai/concepts/content-filter (streaming annotations)',
    'https://learn.microsoft.com/en-us/answers/questions/1533887/does-streaming-work-with-tool-calls-yet-on-azureop',
    'https://github.com/langfuse/langfuse-python/pull/1648 (trailing chunk with delta=None)',
    'https://learn.microsoft.com/en-us/azure/ai-foundry/openai/reference (api-key header, api-version)',
  ],
  baseUrl: 'https://contoso-eastus.openai.azure.com/openai/deployments/gpt-4o?api-version=2024-10-21',
  model: 'gpt-4o',
  rules: azureRules,
  steps: [
    {
      kind: 'sse',
      pieces: [
        data({
          choices: [],
          created: 0,
          id: '',
          model: '',
          object: '',
          prompt_filter_results: [{ prompt_index: 0, content_filter_results: filters }],
        }),
        chunk([
          choice({ content: null, refusal: null, role: 'assistant' }, null, { content_filter_results: {} }),
        ]),
        chunk([
          choice(
            {
              tool_calls: [
                {
                  function: { arguments: '', name: 'get_weather' },
                  id: 'call_AzW1eather0Paris',
                  index: 0,
                  type: 'function',
                },
              ],
            },
            null,
            { content_filter_results: {} },
          ),
        ]),
        chunk([
          choice({ tool_calls: [{ function: { arguments: '{"city":"Paris"}' }, index: 0 }] }, null, {
            content_filter_results: {},
          }),
        ]),
        chunk([
          choice(
            {
              tool_calls: [
                {
                  function: { arguments: '', name: 'get_time' },
                  id: 'call_AzT1me0Tokyo',
                  index: 1,
                  type: 'function',
                },
              ],
            },
            null,
            { content_filter_results: {} },
          ),
        ]),
        chunk([
          choice({ tool_calls: [{ function: { arguments: '{"city":"Tokyo"}' }, index: 1 }] }, null, {
            content_filter_results: {},
          }),
        ]),
        chunk([choice({}, 'tool_calls', { content_filter_results: {} })]),
        chunk([
          choice(undefined, null, {
            content_filter_offsets: { check_offset: 0, start_offset: 0, end_offset: 40 },
            content_filter_results: filters,
          }),
        ]),
        chunk([], { completion_tokens: 44, prompt_tokens: 120, total_tokens: 164 }),
        DONE,
      ],
      holdAfter: 4,
    },
    {
      kind: 'sse',
      pieces: [
        data({
          choices: [],
          created: 0,
          id: '',
          model: '',
          object: '',
          prompt_filter_results: [{ prompt_index: 0, content_filter_results: filters }],
        }),
        chunk([
          choice({ content: '', refusal: null, role: 'assistant' }, null, { content_filter_results: {} }),
        ]),
        chunk([choice({ content: 'Paris: 18°C; Tokyo: 09:30.' }, null, { content_filter_results: filters })]),
        chunk([choice({}, 'stop', { content_filter_results: {} })]),
        chunk([], { completion_tokens: 10, prompt_tokens: 180, total_tokens: 190 }),
        DONE,
      ],
    },
  ],
  expected: {
    kind: 'ok',
    calls: [
      { id: 'call_AzW1eather0Paris', name: 'get_weather', arguments: '{"city":"Paris"}' },
      { id: 'call_AzT1me0Tokyo', name: 'get_time', arguments: '{"city":"Tokyo"}' },
    ],
    finishReason: 'tool-calls',
    usage: { inputTokens: 120, outputTokens: 44 },
  },
  agent: { reason: 'completed', text: 'Paris: 18°C; Tokyo: 09:30.', requests: 2 },
  reference: { kind: 'agrees' },
}
