import type { JsonObject } from '@deepseek-ai/dsh-llm'
import { snapshotJsonValue } from '@deepseek-ai/dsh-llm'
import { toolMessages } from '../contract/messages.ts'
import type { RegisteredTool } from '../registry/normalize-definition.ts'
import type { ToolArguments, ToolExecutionFailure } from '../contract/types.ts'
import { validateArguments } from './call-arguments.ts'
import { failure } from '../contract/results.ts'
import type { RunState } from './run-state.ts'

/** Arguments a policy rewrote a call to, as the model's are: parsed JSON, validated arguments, text. */
export type RewrittenArguments =
  | { readonly ok: true; readonly json: JsonObject; readonly args: ToolArguments; readonly text: string }
  | { readonly ok: false; readonly result: ToolExecutionFailure }

/**
 * T36: the `args` of a pre-execute `allow({ args })` (Claude Code's `updatedInput`) checked like
 * the model's arguments: a lossless JSON object (a policy that hands over a BigInt or a function made
 * an invalid decision: `PIPELINE_FAILED`), within the argument limits and the tool's schema
 * (`INVALID_ARGUMENTS`, saying the rewrite broke it), with the schema's transforms applied. `text`
 * is the JSON the result records as what the call ran with.
 */
export function rewriteArguments(run: RunState, tool: RegisteredTool, raw: JsonObject): RewrittenArguments {
  const name = run.toolName
  const snapshot = snapshotJsonValue(raw)
  if (!snapshot.ok) {
    const problem = `args are not lossless JSON: ${snapshot.path.replace(/^\$/, 'args')} ${snapshot.reason}`
    return { ok: false, result: failure('PIPELINE_FAILED', toolMessages.preExecuteInvalid(name, problem)) }
  }
  const text = JSON.stringify(snapshot.value)
  const checked = validateArguments(run.state.registry, text, tool)
  switch (checked.kind) {
    case 'ok':
      return { ok: true, json: checked.json, args: checked.args, text }
    case 'unparsable':
    case 'invalid':
      return {
        ok: false,
        result: failure('INVALID_ARGUMENTS', toolMessages.rewrittenArgumentsInvalid(name, checked.message)),
      }
    case 'validator-failed':
      return {
        ok: false,
        result: failure('PIPELINE_FAILED', toolMessages.validationFailed(name, checked.message)),
      }
    default: {
      const never: never = checked
      return never
    }
  }
}
