import { checkToolChoice, describeToolChoice, type ModelRequest } from '@deepseek-ai/dsh-llm'
import { ChatCompletionsError } from './errors.ts'
import type { ResolvedOptions } from './resolve-options.ts'

/**
 * The request's `toolChoice` as the chat-completions `tool_choice` field: `"auto"`, `"none"`,
 * `"required"`, or `{ type: 'function', function: { name } }` for one named tool (the OpenAI API
 * reference, `ChatCompletionToolChoiceOption`). `undefined` (no field) when the request has none, and
 * when no tools are sent: the field is only allowed with tools, and `auto`/`none` say nothing then.
 */
export function toWireToolChoice(request: ModelRequest, options: ResolvedOptions): unknown {
  let choice
  try {
    choice = checkToolChoice(request.toolChoice, request.tools, 'request')
  } catch (error) {
    throw new ChatCompletionsError({
      code: 'INVALID_REQUEST',
      message: error instanceof Error ? error.message : String(error),
    })
  }
  if (choice === undefined) return undefined
  if (!options.toolChoice && choice !== 'auto')
    throw new ChatCompletionsError({
      code: 'UNSUPPORTED_TOOL_CHOICE',
      message: `${options.provider} model "${options.model}" cannot honour toolChoice ${describeToolChoice(choice)}: the adapter was created with toolChoice: false (the server does not accept tool_choice)`,
    })
  if (request.tools.length === 0) return undefined
  return typeof choice === 'string' ? choice : { type: 'function', function: { name: choice.name } }
}
