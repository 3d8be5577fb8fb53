import { RUN_CODE_TOOL_NAME } from '../contract/codes.ts'
import type { PresentationMode } from '../contract/types.ts'
import { callableToolNames, mayCallTool } from '../contract/may-call-tool.ts'

/** The built-in section that carries the Code Mode rule and the SDK; no other section may use the name. */
export const CODE_MODE_SECTION = 'code-mode'

/** Where the Code Mode section goes among the others unless `installSystemPrompt` says otherwise. */
export const DEFAULT_CODE_MODE_SECTION_ORDER = 1000

const quote = (name: string): string => `\`${name}\``

/**
 * The rule the model reads about direct calls, written from `mayCallTool` (T7): the names it lists
 * are the ones the predicate lets the model call, so the prompt says exactly what the executor
 * enforces. `undefined` when `run_code` cannot be called directly (no Code Mode in this prompt).
 */
export function codeModeRule(mode: PresentationMode, toolNames: readonly string[]): string | undefined {
  if (!mayCallTool(mode, RUN_CODE_TOOL_NAME, 'model')) return undefined
  const others = toolNames.filter((name) => name !== RUN_CODE_TOOL_NAME)
  const direct = callableToolNames(mode, [RUN_CODE_TOOL_NAME, ...others], 'model')
  const programOnly = others.filter((name) => !direct.includes(name))
  const call = `call the tools declared below as \`await tools.<name>(args)\``
  if (programOnly.length === 0) {
    return `Every tool can be called directly. You can also write a ${quote(RUN_CODE_TOOL_NAME)} program; inside it, ${call}.`
  }
  return (
    `Only ${direct.map(quote).join(', ')} can be called directly; a direct call to any other tool ` +
    `fails as an unknown tool. Inside a ${quote(RUN_CODE_TOOL_NAME)} program, ${call}.`
  )
}

/** A Markdown fence longer than any run of backticks in `text`, so a description cannot close it. */
function fenceFor(text: string): string {
  let longest = 0
  for (const run of text.match(/`+/g) ?? []) longest = Math.max(longest, run.length)
  return '`'.repeat(Math.max(3, longest + 1))
}

/**
 * The Code Mode section: the rule, how a program reports back, how a failed call shows up in the
 * program (the transport's rejection: `name` `ToolError`, `code`, `message`), and the SDK in a `ts`
 * fence.
 */
export function codeModeSectionText(rule: string, sdk: string): string {
  const fence = fenceFor(sdk)
  return [
    '# Code Mode',
    '',
    rule,
    `The program is the body of an async function. Its returned value and what it prints with \`console.log\` are the result of the ${quote(RUN_CODE_TOOL_NAME)} call; independent calls run together with \`Promise.all\`.`,
    `A call that fails rejects with an \`Error\` whose \`code\` is the tool's error code (\`INVALID_ARGUMENTS\`, \`DENIED\`, \`TIMEOUT\`, …) and whose message says why; catch it to carry on, or let it end the program.`,
    '',
    `${fence}ts`,
    sdk.trimEnd(),
    fence,
  ].join('\n')
}
