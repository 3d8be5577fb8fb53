import type {
  LanguageModelV3CallOptions,
  LanguageModelV3FunctionTool,
  LanguageModelV3ToolChoice,
} from '@ai-sdk/provider'
import { describeValue, type ModelRequest, type ToolSchema } from '@deepseek-ai/dsh-llm'
import { AiSdkError } from './errors.ts'
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

const CHOICES: readonly string[] = ['auto', 'none', 'required', 'tool']

/**
 * A `toolChoice` the request carries, when it carries one (the suite's `ModelRequest` does not
 * define the field; a caller or a later version may set it): the AI SDK's own shape, passed through.
 */
function requestToolChoice(request: ModelRequest): LanguageModelV3ToolChoice | undefined {
  const choice: unknown = (request as { readonly toolChoice?: unknown }).toolChoice
  if (choice === undefined) return undefined
  const type = typeof choice === 'object' && choice !== null ? (choice as { type?: unknown }).type : undefined
  if (typeof type !== 'string' || !CHOICES.includes(type))
    throw invalid(
      'toolChoice',
      `must be { type: 'auto' | 'none' | 'required' } or { type: 'tool', toolName }, got ${describeValue(choice)}`,
    )
  if (type === 'tool' && typeof (choice as { toolName?: unknown }).toolName !== 'string')
    throw invalid('toolChoice.toolName', 'must name a tool')
  return choice as LanguageModelV3ToolChoice
}

/** One request as the AI SDK's call options: the prompt, the tools, the tool choice, the signal. */
export function toCallOptions(
  request: ModelRequest,
  base: AiSdkCallOptions,
  abortSignal: AbortSignal,
): LanguageModelV3CallOptions {
  if (typeof request !== 'object' || request === null)
    throw new AiSdkError({
      code: 'INVALID_REQUEST',
      message: `the request must be an object, got ${describeValue(request)}`,
    })
  const tools = toTools(request.tools)
  const toolChoice = requestToolChoice(request) ?? base.toolChoice
  return {
    ...base,
    prompt: toPrompt(request.system, request.messages),
    ...(tools.length > 0 ? { tools } : {}),
    ...(toolChoice === undefined ? {} : { toolChoice }),
    abortSignal,
  }
}
