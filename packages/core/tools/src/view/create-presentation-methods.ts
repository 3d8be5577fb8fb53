import type { JsonObject } from '@deepseek-ai/dsh-llm'
import { clip, MAX_ECHOED_NAME } from '../contract/clip.ts'
import type { RegisteredTool } from '../registry/normalize-definition.ts'
import { mayCallTool, type ToolCallOrigin } from '../contract/may-call-tool.ts'
import { presentationOf, visibleTools, type ScopeToolsState } from '../registry/scope-state.ts'
import type { ToolExecutionResult } from '../contract/types.ts'
import type { ToolRuntime } from '../contract/runtime-types.ts'

/** Longest UI label (a tool's own or the default one). */
const MAX_LABEL = 200
/** Longest echo of arguments or result text inside a default label. */
const MAX_DETAIL = 120

/**
 * UI labels for calls and results (docs/spec.md §5 steps 1 and 12). A tool's `presentCall` /
 * `presentResult` get the validated arguments (as its body would, T36); anything that goes wrong —
 * invalid arguments, a throw, a non-string — falls back to a default label. Labels are one line,
 * clipped at a code-point boundary; nothing here ever throws. A tool the presentation mode does not
 * let `origin` call gets the default label, as an unknown tool does (T7).
 */
export function createPresentationMethods(
  state: ScopeToolsState,
): Pick<ToolRuntime, 'describeCall' | 'describeResult'> {
  const callable = (name: string, origin: unknown): RegisteredTool | undefined => {
    const tool = visibleTools(state).get(name)
    if (tool === undefined) return undefined
    const who: ToolCallOrigin = origin === 'program' ? 'program' : 'model'
    return mayCallTool(presentationOf(state), name, who) ? tool : undefined
  }

  return {
    describeCall(name, args, origin) {
      const tool = callable(name, origin)
      const present = tool?.definition.presentCall
      const label = present === undefined ? undefined : own(tool!, args, (valid) => present(valid))
      return label ?? `${clip(name, MAX_ECHOED_NAME)}(${clip(jsonOf(args), MAX_DETAIL)})`
    },

    describeResult(name, args, result, origin) {
      const tool = callable(name, origin)
      const present = tool?.definition.presentResult
      const label = present === undefined ? undefined : own(tool!, args, (valid) => present(valid, result))
      return label ?? defaultResultLabel(name, result)
    },
  }
}

/** The tool's own label for these arguments, or undefined when it cannot give one. */
function own(
  tool: RegisteredTool,
  args: JsonObject,
  present: (args: unknown) => unknown,
): string | undefined {
  try {
    const validated = tool.validate(args)
    if (!validated.ok) return undefined
    const label = present(validated.value)
    return typeof label === 'string' ? clip(firstLine(label), MAX_LABEL) : undefined
  } catch {
    // a UI label must never break anything; the default line is used instead
    return undefined
  }
}

function defaultResultLabel(name: string, result: ToolExecutionResult): string {
  const who = clip(name, MAX_ECHOED_NAME)
  try {
    if (result.isError) {
      const code = result.error.info?.code
      return `${who} failed${code === undefined ? '' : ` (${code})`}: ${clip(firstLine(result.error.message), MAX_DETAIL)}`
    }
    const text = result.content.find((block) => block.type === 'text')
    return text === undefined ? `${who}: done` : `${who}: ${clip(firstLine(text.text), MAX_DETAIL)}`
  } catch {
    return `${who}: (a result that cannot be described)`
  }
}

function firstLine(text: string): string {
  const end = text.indexOf('\n')
  return end === -1 ? text : `${text.slice(0, end)} …`
}

function jsonOf(value: unknown): string {
  try {
    return JSON.stringify(value) ?? '…'
  } catch {
    return '…'
  }
}
