import type { Context } from '@deepseek-ai/dsh-context'
import type { ToolCallBlock } from '@deepseek-ai/dsh-llm'
import { executeToolCalls, type ExecuteToolCallsResult } from '@deepseek-ai/dsh-agent-loop'

export interface RunStepArgs {
  readonly ctx: Context
  readonly turn: number
  readonly step: number
  readonly toolCalls: readonly ToolCallBlock[]
  readonly signal?: AbortSignal
  readonly acceptContext: (
    text: string,
    source: { readonly callId: string; readonly toolName: string },
  ) => void
}

/**
 * The only place the bench calls `executeToolCalls`. Its signature is expected to become one options
 * object (`{ ctx, turn, step, toolCalls, signal, acceptContext }`); then this body becomes
 * `return executeToolCalls(args)`.
 */
export function runStep(args: RunStepArgs): Promise<ExecuteToolCallsResult> {
  return executeToolCalls(args.ctx, args.turn, args.step, args.toolCalls, args.signal, args.acceptContext)
}
