import type { JsonObject } from '@deepseek-ai/dsh-llm'
import { RUN_CODE_TOOL_NAME } from '../contract/codes.ts'
import { describeThrown } from '../contract/results.ts'
import type { CodeRunResult } from '../presentation/code-runtime-types.ts'
import { mayCallTool } from '../contract/may-call-tool.ts'
import { runCodeToolSchema } from '../presentation/run-code-schema.ts'
import type { ArgumentValidation, ToolDefinition, ToolExecContext } from '../contract/types.ts'
import { openNestedCalls } from './open-nested-calls.ts'
import type { CodeModeSettings } from './read-code-mode-options.ts'
import { renderRunFailure, renderRunOutput, type RunCodeValue } from './render-run-output.ts'

/** The arguments of `run_code` (T32). */
export interface RunCodeArgs {
  readonly code: string
  readonly description: string
}

/** `{ code, description }`, both strings, nothing else: what `runCodeToolSchema()` describes. */
function validateRunCode(input: JsonObject): ArgumentValidation<RunCodeArgs> {
  const issues: { path: string; message: string }[] = []
  for (const key of Object.keys(input))
    if (key !== 'code' && key !== 'description') issues.push({ path: key, message: 'unknown field' })
  for (const key of ['code', 'description'] as const) {
    const value = input[key]
    if (typeof value !== 'string')
      issues.push({ path: key, message: value === undefined ? 'required' : `must be a string` })
  }
  if (issues.length > 0) return { ok: false, issues }
  return { ok: true, value: { code: input.code as string, description: input.description as string } }
}

/**
 * Runs one program (T32–T34): with `ctx.codeRuntime` of the call's scope, bindings for every tool
 * the scope lets a program call (`mayCallTool(mode, name, 'program')`: the names of the SDK), nested
 * calls through the scope's pipeline and scheduler (`openNestedCalls`). Returns only after every
 * nested call has its one result: calls still running when the program ended were aborted by the
 * runtime (their signal) and drained like any aborted call (T38).
 */
async function runProgram(
  settings: CodeModeSettings,
  args: RunCodeArgs,
  exec: ToolExecContext,
): Promise<RunCodeValue> {
  const { ctx } = exec
  const runtime = ctx.codeRuntime
  if (runtime === undefined) {
    throw new Error(
      `no code runtime in scope "${ctx.scope.name}" (ctx.codeRuntime): install one, for example installCodeRuntime(ctx) from @deepseek-ai/dsh-code-runtime`,
    )
  }
  const tools = ctx.tools
  const mode = tools.presentation()
  const names: string[] = []
  for (const tool of tools.list()) if (mayCallTool(mode, tool.name, 'program')) names.push(tool.name)
  const nested = openNestedCalls({ tools, exec, maxParallel: settings.maxParallelSubCalls })
  let outcome: CodeRunResult | undefined
  let failure: unknown
  try {
    outcome = await runtime.run({
      program: args.code,
      language: settings.language,
      bindings: nested.bindings(names),
      signal: exec.signal,
      limits: settings.limits,
    })
  } catch (error) {
    failure = error
  }
  nested.end()
  const calls = await nested.settled
  if (outcome === undefined) throw new Error(`the code runtime failed: ${describeThrown(failure)}`)
  if (calls.kind === 'failed') {
    throw new Error(`the program's tool calls could not be run or recorded: ${describeThrown(calls.error)}`)
  }
  const logs = Array.isArray(outcome.logs) ? outcome.logs : []
  if (outcome.error !== undefined)
    throw new Error(renderRunFailure(outcome.error, logs, settings.maxOutputBytes))
  return outcome.value === undefined ? { logs } : { returned: outcome.value, logs }
}

/**
 * The `run_code` transport's definition: the schema of `runCodeToolSchema()` (what the model is
 * shown and what is validated are one schema), exclusive (a program may make exclusive calls, so it
 * is a barrier among the step's calls), its content the curated output of the run.
 */
export function createRunCodeTool(settings: CodeModeSettings): ToolDefinition<RunCodeArgs, RunCodeValue> {
  const schema = runCodeToolSchema()
  return {
    name: RUN_CODE_TOOL_NAME,
    description: schema.description,
    parameters: schema.parameters as JsonObject,
    validate: validateRunCode,
    execute: (args, exec) => runProgram(settings, args, exec),
    toContent: (value) => renderRunOutput(value, settings.maxOutputBytes),
    presentCall: (args) => `run_code: ${args.description}`,
  }
}
