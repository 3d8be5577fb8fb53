import type { Message, ToolMessage } from '@deepseek-ai/dsh-llm'
import { invalidArgument } from './base/errors.ts'
import type { HistoryItem, PrepareHistory } from './base/context-types.ts'
import { estimateTokens } from './log/estimate-tokens.ts'
import { READ_TOOL_OUTPUT } from './log/read-tool-output-name.ts'

export interface CompactToolResultsOptions {
  /** The model's context window, in tokens. */
  readonly windowTokens: number
  /** Compact once the estimate passes this share of the window (default 0.5). */
  readonly share?: number
  /** Compact down to this share of the window (default `share / 2`), so it does not happen every step. */
  readonly targetShare?: number
  /** The newest tool results left whole (default 2). */
  readonly keepLast?: number
  /** Say in each note that `read_tool_output` reads the result again (default false; register `createReadToolOutputTool`). */
  readonly readToolOutput?: boolean
}

/** How a replaced result starts: a result that reads so was compacted already. */
const NOTE = '[Compacted: the output of '

function share(name: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback
  if (typeof value !== 'number' || !(value > 0 && value <= 1))
    throw invalidArgument(
      `compactToolResults(options): ${name} must be a number in (0, 1], got ${String(value)}`,
    )
  return value
}

/**
 * The out-of-the-box compaction (T57): once the estimate passes `share` of the window, the oldest
 * tool results (but the newest `keepLast`) are replaced, oldest first, by a one-line note naming
 * the tool, the call and the size, until the estimate is under `targetShare`. Calls and their
 * results stay in place, so no result is parted from its call; the loop records the replacement.
 * @example
 * createAgent({ ctx, name: 'a', model, session, prepareHistory: compactToolResults({ windowTokens: 64_000 }) })
 */
export function compactToolResults(options: CompactToolResultsOptions): PrepareHistory {
  const window = options?.windowTokens
  if (typeof window !== 'number' || !Number.isInteger(window) || window <= 0)
    throw invalidArgument(
      `compactToolResults(options): windowTokens must be a positive integer, got ${String(window)}`,
    )
  const start = share('share', options.share, 0.5)
  const target = share('targetShare', options.targetShare, start / 2)
  const keepLast = options.keepLast ?? 2
  if (!Number.isInteger(keepLast) || keepLast < 0)
    throw invalidArgument(
      `compactToolResults(options): keepLast must be a non-negative integer, got ${String(keepLast)}`,
    )
  const readable = options.readToolOutput === true
  return ({ items, estimate }) => {
    if (estimate.tokens <= start * window) return undefined
    let excess = estimate.tokens - target * window
    const names = new Map<string, string>()
    const tools: number[] = []
    items.forEach((item, i) => {
      const { message } = item
      if (message.role === 'assistant')
        for (const block of message.content) if (block.type === 'tool-call') names.set(block.id, block.name)
      if (message.role === 'tool') tools.push(i)
    })
    const out: HistoryItem[] = items.slice()
    let changed = false
    for (const i of tools.slice(0, Math.max(0, tools.length - keepLast))) {
      if (excess <= 0) break
      const item = items[i]!
      const message = item.message as ToolMessage
      const result = message.content[0]
      if (result === undefined || message.content.length !== 1) continue
      const first = result.content[0]
      if (first?.type === 'text' && first.text.startsWith(NOTE)) continue
      let chars = 0
      for (const part of result.content) chars += part.type === 'text' ? part.text.length : 0
      const how = readable
        ? `; call ${READ_TOOL_OUTPUT} with {"callId": ${JSON.stringify(result.callId)}} to read it again`
        : '; it is kept in the session log'
      const note: Message = {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            callId: result.callId,
            isError: result.isError,
            content: [
              {
                type: 'text',
                text: `${NOTE}${names.get(result.callId) ?? 'a tool'} (call "${result.callId}", ${chars} characters) was removed to keep the conversation within the context window${how}.]`,
              },
            ],
          },
        ],
      }
      excess -= estimateTokens([message]) - estimateTokens([note])
      out[i] = { seq: item.seq, message: note }
      changed = true
    }
    return changed ? { items: out } : undefined
  }
}
