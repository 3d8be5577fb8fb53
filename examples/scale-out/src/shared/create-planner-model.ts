import { join } from 'node:path'
import {
  createScriptedModel,
  textBlock,
  toolCallBlock,
  type AssistantContent,
  type ModelRequest,
  type ScriptedModel,
  type ToolCallBlock,
} from '@deepseek-ai/dsh-llm'

/** The most steps one turn of the planner takes (its plan needs three). */
const MAX_STEPS = 8

/**
 * A stand-in for a real model that decides from the history alone, so a process that resumes a
 * session another process started continues the same plan: first a step of two quick digests and
 * two slow `await_file` calls (for `<gateDir>/first` and `<gateDir>/second`); then, once results
 * are in, the same call again under `<id>-retry` for every `await_file` that failed (an
 * interrupted one, say); then a final text that counts what succeeded.
 */
export function createPlannerModel(options: { readonly gateDir: string }): ScriptedModel {
  const decide = (request: ModelRequest): readonly AssistantContent[] => {
    const calls: ToolCallBlock[] = []
    const failed = new Set<string>()
    for (const message of request.messages) {
      if (message.role === 'assistant') {
        for (const block of message.content) if (block.type === 'tool-call') calls.push(block)
      } else if (message.role === 'tool') {
        for (const block of message.content) if (block.isError) failed.add(block.callId)
      }
    }
    if (calls.length === 0) {
      return [
        toolCallBlock({ id: 'd1', name: 'digest', args: { text: 'alpha' } }),
        toolCallBlock({ id: 'd2', name: 'digest', args: { text: 'beta' } }),
        toolCallBlock({ id: 'w1', name: 'await_file', args: { path: join(options.gateDir, 'first') } }),
        toolCallBlock({ id: 'w2', name: 'await_file', args: { path: join(options.gateDir, 'second') } }),
      ]
    }
    const issued = new Set(calls.map((call) => call.id))
    const retries = calls
      .filter((call) => call.name === 'await_file' && failed.has(call.id) && !call.id.endsWith('-retry'))
      .filter((call) => !issued.has(`${call.id}-retry`))
      .map((call) => ({ ...call, id: `${call.id}-retry` }))
    if (retries.length > 0) return retries
    const retried = calls.filter((call) => call.id.endsWith('-retry')).map((call) => call.id.slice(0, -6))
    const succeeded = calls.filter((call) => !failed.has(call.id)).length
    return [
      textBlock(
        `Done: ${succeeded} of ${calls.length} calls succeeded; retried ${retried.length === 0 ? 'nothing' : retried.join(', ')}.`,
      ),
    ]
  }
  return createScriptedModel({ turns: Array.from({ length: MAX_STEPS }, () => decide) })
}
