import { z } from 'zod'
import { createContext, createMemoryLogger, type Context, type MemoryLogger } from '@deepseek-ai/dsh-context'
import { toolCallBlock, type ToolCallBlock } from '@deepseek-ai/dsh-llm'
import { createMemorySession, type Session } from '@deepseek-ai/dsh-session'
import {
  defineTool,
  installTools,
  type AnyToolDefinition,
  type ToolExecContext,
} from '@deepseek-ai/dsh-tools'
import { resolveAgentLoopConfig, type AgentLoopConfig } from '@deepseek-ai/dsh-agent-loop'

export { quiesce } from './batch-harness.ts'

export interface Setup {
  readonly root: Context
  /** A child scope providing `agentLoop` (what `executeToolCalls` runs in). */
  readonly ctx: Context
  readonly session: Session
  readonly logger: MemoryLogger
}

/** A root ctx with tools installed and an agent scope that provides `agentLoop`. */
export function setup(
  config: Partial<AgentLoopConfig> = {},
  session: Session = createMemorySession(),
): Setup {
  const logger = createMemoryLogger()
  const root = createContext({ logger })
  installTools(root)
  const ctx = root.createScope({ name: 'agent' })
  ctx.provide('agentLoop', { config: resolveAgentLoopConfig(config), session })
  return { root, ctx, session, logger }
}

import { deferred, type Deferred } from '../../../../../test-support/deferred.ts'

export { deferred, type Deferred }

/** A log of what happened, in order: `start:<callId>`, `end:<callId>`, … */
export type Journal = string[]

export interface GatedTool {
  readonly definition: AnyToolDefinition
  /** Lets the body of `callId` return (creating the gate if the body has not started yet). */
  release(callId: string, value?: string): void
  fail(callId: string, message: string): void
  /** Bodies that have started and not returned. */
  readonly running: ReadonlySet<string>
}

/**
 * A tool whose bodies wait until the test releases them, journaling starts and ends. `mode` decides
 * `isConcurrencySafe` (read at every scheduling decision, so tests may change it).
 */
export function gatedTool(options: {
  readonly name: string
  readonly journal: Journal
  readonly parallel?: () => boolean
  readonly keys?: (args: { key: string | null }) => string | undefined
  readonly onStart?: (exec: ToolExecContext, args: { key: string | null }) => void
}): GatedTool {
  const gates = new Map<string, Deferred<string>>()
  const gate = (callId: string): Deferred<string> => {
    let g = gates.get(callId)
    if (g === undefined) gates.set(callId, (g = deferred<string>()))
    return g
  }
  const running = new Set<string>()
  const definition = defineTool({
    name: options.name,
    description: `gated test tool ${options.name}`,
    parameters: z.object({ key: z.string().nullable() }),
    ...(options.parallel === undefined ? {} : { isConcurrencySafe: () => options.parallel!() }),
    ...(options.keys === undefined ? {} : { concurrencyKey: options.keys }),
    execute: async (args, exec) => {
      options.journal.push(`start:${exec.callId}`)
      running.add(exec.callId)
      options.onStart?.(exec, args)
      try {
        return await gate(exec.callId).promise
      } finally {
        running.delete(exec.callId)
        options.journal.push(`end:${exec.callId}`)
      }
    },
  })
  return {
    definition,
    release: (callId, value = `done ${callId}`) => gate(callId).resolve(value),
    fail: (callId, message) => gate(callId).reject(new Error(message)),
    running,
  }
}

export function call(id: string, name: string, args: Record<string, unknown> = { key: null }): ToolCallBlock {
  return toolCallBlock({ id, name, args })
}
