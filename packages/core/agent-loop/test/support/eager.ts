import { createContext, createMemoryLogger, type Context } from '@deepseek-ai/dsh-context'
import { toolCallBlock, toolCallsOf, type Message, type ToolCallBlock } from '@deepseek-ai/dsh-llm'
import {
  createMemorySession,
  type AnySession,
  type Session,
  type SessionEvent,
  type ToolResultEventData,
} from '@deepseek-ai/dsh-session'
import { installTools, type AnyToolDefinition } from '@deepseek-ai/dsh-tools'
import { createAgent, type Agent, type AgentEvent } from '@deepseek-ai/dsh-agent-loop'
import { gatedTool, quiesce, type Deferred, type GatedTool, type Journal } from './fixtures.ts'
import { createStreamingModel, type StreamScript, type StreamingModel } from './stream-model.ts'

/** The same tool, declaring `eager: false`. */
export function notEager(definition: AnyToolDefinition): AnyToolDefinition {
  return { ...definition, eager: false }
}

export interface EagerSetup {
  readonly root: Context
  readonly journal: Journal
  /** Parallel-safe. */
  readonly par: GatedTool
  /** Exclusive (no `isConcurrencySafe`). */
  readonly ex: GatedTool
  /** Parallel-safe, but declares `eager: false`. */
  readonly lazy: GatedTool
}

/**
 * Three gated tools (bodies wait for the test) whose bodies fail with "stopped" as soon as their
 * signal aborts, so an abort drains them at once; a `tools/pre-execute` listener journals policy.
 */
export function eagerTools(): EagerSetup {
  const root = createContext({ logger: createMemoryLogger() })
  installTools(root)
  const journal: Journal = []
  const tools: Record<string, GatedTool> = {}
  const stopOnAbort = (name: string) => (exec: { callId: string; signal: AbortSignal }) =>
    exec.signal.addEventListener('abort', () => tools[name]!.fail(exec.callId, 'stopped'), { once: true })
  tools.par = gatedTool({ name: 'par', journal, parallel: () => true, onStart: stopOnAbort('par') })
  tools.ex = gatedTool({ name: 'ex', journal, onStart: stopOnAbort('ex') })
  tools.lazy = gatedTool({ name: 'lazy', journal, parallel: () => true, onStart: stopOnAbort('lazy') })
  root.tools.register(tools.par.definition)
  root.tools.register(tools.ex.definition)
  root.tools.register(notEager(tools.lazy.definition))
  root.on('tools/pre-execute', (info, next) => {
    journal.push(`policy:${info.callId}`)
    return next()
  })
  return { root, journal, par: tools.par, ex: tools.ex, lazy: tools.lazy }
}

export function agentOn(
  root: Context,
  scripts: readonly StreamScript[],
  options: {
    session?: AnySession
    eagerToolExecution?: boolean
    ignoreAbort?: boolean
    config?: { maxParallelToolCalls?: number }
  } = {},
): { agent: Agent; model: StreamingModel; session: AnySession; events: AgentEvent[] } {
  const model = createStreamingModel(
    scripts,
    options.ignoreAbort === undefined ? {} : { ignoreAbort: options.ignoreAbort },
  )
  const session = options.session ?? createMemorySession()
  const agent = createAgent({
    ctx: root,
    name: 'eager',
    model,
    session,
    ...(options.eagerToolExecution === undefined ? {} : { eagerToolExecution: options.eagerToolExecution }),
    ...(options.config === undefined ? {} : { config: options.config }),
  })
  return { agent, model, session, events: [] }
}

export const callOf = (id: string, name: string): ToolCallBlock =>
  toolCallBlock({ id, name, args: { key: null } })

/** A model step that streams `calls`, holds its stream open until the test resolves `gate`, then ends. */
export const callsUntil =
  (gate: Deferred, ...calls: readonly ToolCallBlock[]): StreamScript =>
  async (s) => {
    for (const call of calls) s.call(call)
    await gate.promise
    s.finish()
  }

/** A model step that answers `done` (the turn's last). */
export const saysDone: StreamScript = (s) => {
  s.text('done')
  s.finish()
}

/** A memory session that refuses every `assistant/message` (`disk full`) and records everything else. */
export function sessionRefusingMessages(): Session {
  const inner = createMemorySession()
  const session = Object.create(inner) as Session
  Object.defineProperty(session, 'append', {
    value: (type: string, data: unknown, options?: Parameters<Session['append']>[2]) => {
      if (type === 'assistant/message') throw new Error('disk full')
      return inner.append(type, data, options)
    },
  })
  return session
}

/** Lets every promise chain the last change started run to its end (no timers involved). */
export async function settleAll(turns = 5): Promise<void> {
  for (let i = 0; i < turns; i++) await quiesce()
}

/** The error code (or OK) of each `tool/result`, by callId. */
export function resultCodes(events: readonly SessionEvent[]): Record<string, string> {
  const out: Record<string, string> = {}
  for (const event of events) {
    if (event.type !== 'tool/result') continue
    const data = event.data as unknown as ToolResultEventData
    out[data.message.content[0]!.callId] = data.error?.code ?? 'OK'
  }
  return out
}

/** Every tool call of every assistant message is answered by a tool message before the next user or assistant message. */
export function pairedForProvider(messages: readonly Message[]): boolean {
  let open = new Set<string>()
  for (const message of messages) {
    if (message.role === 'tool') {
      for (const block of message.content) open.delete(block.callId)
      continue
    }
    if (open.size > 0) return false
    open = message.role === 'assistant' ? new Set(toolCallsOf(message).map((b) => b.id)) : new Set()
  }
  return open.size === 0
}
