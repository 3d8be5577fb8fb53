import type {
  LanguageModelV3Content,
  LanguageModelV3FinishReason,
  LanguageModelV3StreamPart,
  LanguageModelV3Usage,
  SharedV3ProviderMetadata,
} from '@ai-sdk/provider'
import type {
  AssistantContent,
  FinishReason,
  ModelResponse,
  ModelStreamPart,
  ToolCallBlock,
} from '@deepseek-ai/dsh-llm'
import { AiSdkError } from './errors.ts'
import { toTokenUsage } from './to-token-usage.ts'

/** Turns AI SDK stream parts (or generated content) into the suite's parts; pure, no I/O. */
export interface PartAssembler {
  /** Applies one stream part; appends what it produces to `out`. Throws for an `error` part. */
  push(part: LanguageModelV3StreamPart, out: ModelStreamPart[]): void
  /** Applies `doGenerate`'s result at once: its content, finish reason and usage. */
  pushResult(
    content: readonly LanguageModelV3Content[],
    finishReason: LanguageModelV3FinishReason,
    usage: LanguageModelV3Usage | undefined,
  ): void
  /** The response, once a finish was seen; `INCOMPLETE_STREAM` when none was. */
  finish(): ModelResponse
}

interface OpenBlock {
  readonly type: 'text' | 'reasoning'
  text: string
  metadata: SharedV3ProviderMetadata | undefined
}

/** Provider metadata merged provider by provider (a thinking signature arrives on a later delta). */
function merge(
  into: SharedV3ProviderMetadata | undefined,
  more: SharedV3ProviderMetadata | undefined,
): SharedV3ProviderMetadata | undefined {
  if (more === undefined) return into
  const merged: Record<string, Record<string, unknown>> = { ...into }
  for (const [provider, values] of Object.entries(more)) merged[provider] = { ...merged[provider], ...values }
  return merged as SharedV3ProviderMetadata
}

function finishReasonOf(reason: LanguageModelV3FinishReason, calls: number): FinishReason {
  // A provider built for an older interface may hand over the bare string.
  const unified: unknown = typeof reason === 'string' ? reason : reason.unified
  switch (unified) {
    case 'stop':
      // Some providers (Gemini behind compatible endpoints) finish a step that called tools with "stop".
      return calls > 0 ? 'tool-calls' : 'stop'
    case 'tool-calls':
    case 'length':
    case 'content-filter':
    case 'error':
    case 'other':
      return unified
    default:
      return 'other'
  }
}

/**
 * The assembler behind `fromAiSdk`. Text and reasoning deltas pass through and build one block per
 * AI SDK block id, in the order they began; a reasoning block keeps its provider metadata (an
 * Anthropic signature, an OpenAI reasoning item) as JSON in `signature`, so it goes back unchanged.
 * Each complete `tool-call` part is yielded at once, which is what eager dispatch needs, and the
 * `tool-input-start` / `-delta` / `-end` parts before it pass through (for display); calls the
 * provider executed itself, their results, files and sources have no place in the suite's message
 * and are left out.
 */
export function createPartAssembler(where: string): PartAssembler {
  const blocks: (OpenBlock | ToolCallBlock)[] = []
  const open = new Map<string, OpenBlock>()
  const callIds = new Set<string>()
  /** Ids of the tool inputs being streamed (`tool-input-start` seen, no end yet). */
  const inputs = new Set<string>()
  let finishReason: LanguageModelV3FinishReason | undefined
  let usage: LanguageModelV3Usage | undefined

  function block(type: OpenBlock['type'], id: string): OpenBlock {
    const key = `${type}:${id}`
    let current = open.get(key)
    if (current === undefined) {
      current = { type, text: '', metadata: undefined }
      open.set(key, current)
      blocks.push(current)
    }
    return current
  }

  function call(toolCallId: string, toolName: string, input: string): ToolCallBlock {
    if (
      typeof toolCallId !== 'string' ||
      toolCallId === '' ||
      typeof toolName !== 'string' ||
      toolName === ''
    )
      throw new AiSdkError({
        code: 'MALFORMED_STREAM',
        message: `${where}: a tool call without an id or a name`,
      })
    // Results pair with calls by id: two calls sharing one could never both be answered.
    if (callIds.has(toolCallId))
      throw new AiSdkError({
        code: 'MALFORMED_STREAM',
        message: `${where}: two tool calls share the id "${toolCallId}"`,
      })
    callIds.add(toolCallId)
    const complete: ToolCallBlock = {
      type: 'tool-call',
      id: toolCallId,
      name: toolName,
      arguments: typeof input === 'string' && input !== '' ? input : '{}',
    }
    blocks.push(complete)
    return complete
  }

  return {
    push(part, out) {
      switch (part.type) {
        case 'text-start':
        case 'reasoning-start': {
          const current = block(part.type === 'text-start' ? 'text' : 'reasoning', part.id)
          current.metadata = merge(current.metadata, part.providerMetadata)
          return
        }
        case 'text-delta': {
          const current = block('text', part.id)
          current.text += part.delta
          if (part.delta !== '') out.push({ type: 'text-delta', text: part.delta })
          return
        }
        case 'reasoning-delta': {
          const current = block('reasoning', part.id)
          current.text += part.delta
          current.metadata = merge(current.metadata, part.providerMetadata)
          if (part.delta !== '') out.push({ type: 'reasoning-delta', text: part.delta })
          return
        }
        case 'text-end':
        case 'reasoning-end': {
          const current = open.get(`${part.type === 'text-end' ? 'text' : 'reasoning'}:${part.id}`)
          if (current !== undefined) current.metadata = merge(current.metadata, part.providerMetadata)
          return
        }
        case 'tool-call':
          if (part.providerExecuted === true) return
          out.push({ type: 'tool-call', call: call(part.toolCallId, part.toolName, part.input) })
          return
        case 'finish':
          finishReason = part.finishReason
          usage = part.usage
          return
        case 'error':
          throw part.error
        // Tool input streaming, for display; calls the provider runs itself are not the loop's.
        case 'tool-input-start':
          if (part.providerExecuted) return
          inputs.add(part.id)
          out.push({ type: 'tool-input-start', id: part.id, name: part.toolName })
          return
        case 'tool-input-delta':
          if (inputs.has(part.id) && part.delta !== '')
            out.push({ type: 'tool-input-delta', id: part.id, delta: part.delta })
          return
        case 'tool-input-end':
          if (inputs.delete(part.id)) out.push({ type: 'tool-input-end', id: part.id })
          return
        case 'tool-result':
        case 'tool-approval-request':
        case 'file':
        case 'source':
        case 'stream-start':
        case 'response-metadata':
        case 'raw':
          return
        default: {
          const never: never = part
          void never
          return
        }
      }
    },

    pushResult(content, reason, reported) {
      finishReason = reason
      usage = reported
      content.forEach((part, i) => {
        switch (part.type) {
          case 'text':
          case 'reasoning': {
            const current = block(part.type, `generated-${i}`)
            current.text = part.text
            current.metadata = part.providerMetadata
            return
          }
          case 'tool-call':
            if (part.providerExecuted !== true) call(part.toolCallId, part.toolName, part.input)
            return
          default:
            return
        }
      })
    },

    finish() {
      if (finishReason === undefined)
        throw new AiSdkError({
          code: 'INCOMPLETE_STREAM',
          message: `${where}: the stream ended without a finish part: the answer may be cut short`,
        })
      const calls = blocks.filter((b) => b.type === 'tool-call').length
      const content: AssistantContent[] = []
      for (const b of blocks) {
        if (b.type === 'tool-call') content.push(b)
        else if (b.type === 'text') {
          if (b.text !== '') content.push({ type: 'text', text: b.text })
        } else if (b.text !== '' || b.metadata !== undefined) {
          content.push({
            type: 'reasoning',
            text: b.text,
            ...(b.metadata === undefined ? {} : { signature: JSON.stringify(b.metadata) }),
          })
        }
      }
      return {
        message: { role: 'assistant', content },
        finishReason: finishReasonOf(finishReason, calls),
        usage: toTokenUsage(usage),
      }
    },
  }
}
