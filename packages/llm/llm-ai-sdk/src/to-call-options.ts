import type {
  LanguageModelV3CallOptions,
  LanguageModelV3FunctionTool,
  LanguageModelV3ToolChoice,
} from '@ai-sdk/provider'
import { checkToolChoice, describeValue, type ModelRequest, type ToolSchema } from '@deepseek-ai/dsh-llm'
import { AiSdkError } from './errors.ts'
import type { PromptOptions } from './audio-mode.ts'
import { toPrompt } from './to-prompt.ts'

/** The call options `fromAiSdk` lets a harness set (everything but what each request supplies). */
export type AiSdkCallOptions = Omit<LanguageModelV3CallOptions, 'prompt' | 'tools' | 'abortSignal'>

function invalid(where: string, problem: string): AiSdkError {
  return new AiSdkError({ code: 'INVALID_REQUEST', message: `request.${where}: ${problem}` })
}

function toTools(tools: readonly ToolSchema[]): LanguageModelV3FunctionTool[] {
  if (!Array.isArray(tools))
    throw invalid('tools', `must be an array of tool schemas, got ${describeValue(tools)}`)
  const names = new Set<string>()
  return tools.map((tool: ToolSchema, i): LanguageModelV3FunctionTool => {
    if (typeof tool !== 'object' || tool === null)
      throw invalid(`tools[${i}]`, `must be a tool schema, got ${describeValue(tool)}`)
    if (typeof tool.name !== 'string' || tool.name === '')
      throw invalid(`tools[${i}].name`, `must be a non-empty string, got ${describeValue(tool.name)}`)
    if (names.has(tool.name)) throw invalid(`tools[${i}].name`, `"${tool.name}" appears twice`)
    names.add(tool.name)
    if (typeof tool.parameters !== 'object' || tool.parameters === null || Array.isArray(tool.parameters))
      throw invalid(
        `tools[${i}].parameters`,
        `must be a JSON Schema object, got ${describeValue(tool.parameters)}`,
      )
    return {
      type: 'function',
      name: tool.name,
      ...(typeof tool.description === 'string' && tool.description !== ''
        ? { description: tool.description }
        : {}),
      // The schema the model sees is the ToolSchema's (T1), passed as it is.
      inputSchema: tool.parameters as LanguageModelV3FunctionTool['inputSchema'],
    }
  })
}

/**
 * The request's `toolChoice` as the AI SDK's (`LanguageModelV3ToolChoice`): `{ type: 'auto' }`,
 * `{ type: 'none' }`, `{ type: 'required' }`, or `{ type: 'tool', toolName }` for one named tool.
 */
function requestToolChoice(request: ModelRequest): LanguageModelV3ToolChoice | undefined {
  let choice
  try {
    choice = checkToolChoice(request.toolChoice, request.tools, 'request')
  } catch (error) {
    throw new AiSdkError({ code: 'INVALID_REQUEST', message: (error as Error).message })
  }
  if (choice === undefined) return undefined
  return typeof choice === 'string' ? { type: choice } : { type: 'tool', toolName: choice.name }
}

/** The request's `providerOptions` over the harness's, provider by provider. */
function providerOptionsOf(
  request: ModelRequest,
  base: AiSdkCallOptions,
): LanguageModelV3CallOptions['providerOptions'] {
  const more: unknown = request.providerOptions
  if (more === undefined) return base.providerOptions
  if (typeof more !== 'object' || more === null || Array.isArray(more))
    throw invalid('providerOptions', `must be an object keyed by provider, got ${describeValue(more)}`)
  const merged: Record<string, Record<string, unknown>> = { ...base.providerOptions }
  for (const [provider, values] of Object.entries(more)) {
    if (typeof values !== 'object' || values === null || Array.isArray(values))
      throw invalid(`providerOptions.${provider}`, `must be an object, got ${describeValue(values)}`)
    merged[provider] = { ...merged[provider], ...(values as Record<string, unknown>) }
  }
  return merged as LanguageModelV3CallOptions['providerOptions']
}

/** One request as the AI SDK's call options: the prompt, the tools, the tool choice, the signal. */
export function toCallOptions(
  request: ModelRequest,
  base: AiSdkCallOptions,
  abortSignal: AbortSignal,
  promptOptions: PromptOptions = {},
): LanguageModelV3CallOptions {
  if (typeof request !== 'object' || request === null)
    throw new AiSdkError({
      code: 'INVALID_REQUEST',
      message: `the request must be an object, got ${describeValue(request)}`,
    })
  const tools = toTools(request.tools)
  const toolChoice = requestToolChoice(request) ?? base.toolChoice
  const providerOptions = providerOptionsOf(request, base)
  return {
    ...base,
    ...(providerOptions === undefined ? {} : { providerOptions }),
    prompt: toPrompt(request.system, request.messages, promptOptions),
    ...(tools.length > 0 ? { tools } : {}),
    ...(toolChoice === undefined ? {} : { toolChoice }),
    abortSignal,
  }
}
