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

/** The only place the bench calls `executeToolCalls`. */
export function runStep(args: RunStepArgs): Promise<ExecuteToolCallsResult> {
  return executeToolCalls(args)
}
