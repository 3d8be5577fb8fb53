import { describeValue, type ToolSchema } from '@deepseek-ai/dsh-llm'
import { ChatCompletionsError } from './errors.ts'

export interface WireTool {
  readonly type: 'function'
  readonly function: {
    readonly name: string
    readonly description: string
    readonly parameters: Readonly<Record<string, unknown>>
    readonly strict?: true
  }
}

function invalid(where: string, problem: string): ChatCompletionsError {
  return new ChatCompletionsError({ code: 'INVALID_REQUEST', message: `request.${where}: ${problem}` })
}

/** The provider's `tools` format: `{ type: 'function', function: { name, description, parameters } }`. */
export function toWireTools(tools: readonly ToolSchema[], strict: (tool: ToolSchema) => boolean): WireTool[] {
  if (!Array.isArray(tools))
    throw invalid('tools', `must be an array of tool schemas, got ${describeValue(tools)}`)
  const names = new Set<string>()
  return tools.map((tool: ToolSchema, i) => {
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
    const fn = {
      name: tool.name,
      description: typeof tool.description === 'string' ? tool.description : '',
      parameters: tool.parameters,
    }
    let isStrict: boolean
    try {
      isStrict = strict(tool) === true
    } catch (error) {
      throw new ChatCompletionsError({
        code: 'INVALID_REQUEST',
        message: `request.tools[${i}]: options.strictTools threw for "${tool.name}": ${error instanceof Error ? error.message : describeValue(error)}`,
        cause: error,
      })
    }
    return { type: 'function', function: isStrict ? { ...fn, strict: true } : fn }
  })
}
