import type { ToolExecutionInput } from '@deepseek-ai/dsh-tools'

/** What a resume hands the tools for a call the log holds without a result (nested ones cite their parent). */
export function inputOfOpenCall(call: {
  readonly callId: string
  readonly name: string
  readonly arguments: string
  readonly turn: number
  readonly step: number
  readonly parentCallId?: string | undefined
}): ToolExecutionInput {
  return {
    callId: call.callId,
    name: call.name,
    arguments: call.arguments,
    turn: call.turn,
    step: call.step,
    ...(call.parentCallId === undefined ? {} : { parent: { callId: call.parentCallId } }),
  }
}
