import { z } from 'zod'
import { createScriptedModel, type ScriptedTurn } from '@deepseek-ai/dsh-llm'
import {
  createMemorySession,
  type AnySession,
  type Session,
  type SessionEvent,
} from '@deepseek-ai/dsh-session'
import { defineTool } from '@deepseek-ai/dsh-tools'
import { createAgent, type Agent, type AgentLoopConfig } from '@deepseek-ai/dsh-agent-loop'
import { createContext, createMemoryLogger, type Context, type MemoryLogger } from '@deepseek-ai/dsh-context'
import { installTools } from '@deepseek-ai/dsh-tools'

export interface AgentSetup<S extends AnySession = Session> {
  readonly root: Context
  readonly agent: Agent<S>
  readonly session: S
  readonly model: ReturnType<typeof createScriptedModel>
  readonly logger: MemoryLogger
}

/** A root ctx with tools installed and two small tools (`echo`, parallel-safe; `note`, defers context), an agent on it. */
export function agentWith<S extends AnySession = Session>(
  turns: readonly ScriptedTurn[],
  options: {
    config?: Partial<AgentLoopConfig>
    session?: S
    system?: string
    root?: Context
    eagerToolExecution?: boolean
  } = {},
): AgentSetup<S> {
  const logger = createMemoryLogger()
  const root = options.root ?? createContext({ logger })
  if (options.root === undefined) {
    installTools(root)
    registerBasicTools(root)
  }
  const session = options.session ?? (createMemorySession() as AnySession as S)
  const model = createScriptedModel({ turns })
  const agent = createAgent({
    ctx: root,
    name: 'tester',
    model,
    session,
    ...(options.system === undefined ? {} : { system: options.system }),
    ...(options.config === undefined ? {} : { config: options.config }),
    ...(options.eagerToolExecution === undefined ? {} : { eagerToolExecution: options.eagerToolExecution }),
  })
  return { root, agent, session, model, logger }
}

export function registerBasicTools(root: Context): void {
  root.tools.register(
    defineTool({
      name: 'echo',
      description: 'Echo text back.',
      parameters: z.object({ text: z.string() }),
      isConcurrencySafe: () => true,
      execute: ({ text }) => text,
    }),
  )
  root.tools.register(
    defineTool({
      name: 'note',
      description: 'Remember a note for the next step; may end the turn.',
      parameters: z.object({ text: z.string(), conclude: z.boolean() }),
      execute: ({ text, conclude }, exec) => {
        exec.deferContext(text)
        if (conclude) exec.concludeTurn()
        return 'noted'
      },
    }),
  )
}

/** `type` (and the callId for tool events) of each event: a compact view of a log. */
export function shape(events: readonly SessionEvent[]): string[] {
  return events.map((event) => {
    const data = event.data as {
      callId?: string
      reason?: string
      source?: string
      message?: { content?: { callId?: string }[] }
    }
    if (event.type === 'tool/call') return `tool/call ${data.callId}`
    if (event.type === 'tool/result') return `tool/result ${data.message?.content?.[0]?.callId}`
    if (event.type === 'turn/end') return `turn/end ${data.reason}`
    if (event.type === 'user/message') return `user/message ${data.source}`
    return event.type
  })
}
