import { createAgent, type Agent } from '@deepseek-ai/dsh-agent-loop'
import { createContext } from '@deepseek-ai/dsh-context'
import type { LanguageModel } from '@deepseek-ai/dsh-llm'
import type { Session } from '@deepseek-ai/dsh-session'
import { installTools, type ApprovalService, type CallConcurrency } from '@deepseek-ai/dsh-tools'
import type { PresentationMode } from '../cli/parse-demo-args.ts'
import { installDemoPermissions } from '../policy/install-demo-permissions.ts'
import type { JobGate } from '../tools/long-task.ts'
import { registerDemoTools } from '../tools/register-demo-tools.ts'
import { installPresentation, type InstallCodeRuntime } from './install-presentation.ts'

/** The demo's pool: small, so a step of eleven calls shows slots being reused. */
export const POOL_SIZE = 3

export const SYSTEM_PROMPT = `You are a guide to the docs/ folder of the dsh repository (a TypeScript suite for agent harnesses).
Use the tools: list_docs, read_doc and grep_docs read docs/ (paths are relative to it); calculate does arithmetic; clock tells the time; long_task runs a slow job; check_service checks a service; write_note saves a note in the scratch folder and needs the user's approval.
Call several read-only tools in one step when you can: they run in parallel. Keep answers short.`

export interface DemoAgentOptions {
  readonly session: Session
  readonly model: LanguageModel
  readonly docs: string
  readonly scratch: string
  readonly slowMs: number
  /** What a `long_task` job waits for once its steps are done (the story holds the jobs it interrupts). */
  readonly jobGate?: JobGate | undefined
  readonly mode: PresentationMode
  /** From `preparePresentation`: the code runtime's installer, for `code` and `both`. */
  readonly installCodeRuntime: InstallCodeRuntime | undefined
  readonly approval: ApprovalService
  /**
   * A call's body (a `tools/execute` wrapper around it) began (`true`) or ended (`false`), a
   * `run_code` program's nested calls included: the loop emits no events for those, and the story
   * presses its Ctrl-C once the jobs it interrupts are running.
   */
  readonly onRun?: (run: { readonly toolName: string; readonly nested: boolean }, running: boolean) => void
  /** Warnings and errors of the suite (e.g. a body that settled after its timeout). */
  readonly log: (level: 'warn' | 'error', message: string) => void
}

export interface DemoAgent {
  readonly agent: Agent
  /** Mode and resource keys of a call, as the scheduler will read them (`ctx.tools.concurrency`). */
  readonly predict: (callId: string, name: string, args: string) => CallConcurrency | undefined
  dispose(): void
}

/**
 * A fresh context with the demo's tools, permission rules, approval service and presentation, and
 * an agent on `session`. A resumed session gets the same: the log holds calls and results, not code.
 */
export function openDemoAgent(options: DemoAgentOptions): DemoAgent {
  const ignore = (): void => {}
  const ctx = createContext({
    logger: {
      debug: ignore,
      info: ignore,
      warn: (message) => options.log('warn', message),
      error: (message) => options.log('error', message),
    },
  })
  const disposers = [
    installTools(ctx),
    registerDemoTools(ctx, {
      docs: options.docs,
      scratch: options.scratch,
      stepMs: options.slowMs,
      jobGate: options.jobGate,
    }),
    installDemoPermissions(ctx, { docs: options.docs }),
    ctx.provide('approval', options.approval),
    ctx.on('tools/execute', async (call, next) => {
      const observe = options.onRun
      if (observe === undefined) return next()
      const run = { toolName: call.toolName, nested: call.parentCallId !== undefined }
      observe(run, true)
      try {
        return await next()
      } finally {
        observe(run, false)
      }
    }),
    installPresentation(ctx, {
      mode: options.mode,
      installCodeRuntime: options.installCodeRuntime,
      maxParallelSubCalls: POOL_SIZE,
    }),
  ]
  const agent = createAgent({
    ctx,
    name: 'demo',
    model: options.model,
    session: options.session,
    system: SYSTEM_PROMPT,
    config: { maxParallelToolCalls: POOL_SIZE, maxSteps: 8 },
  })
  return {
    agent,
    predict(callId, name, args) {
      try {
        return agent.ctx.tools.concurrency({ callId, name, arguments: args })
      } catch {
        return undefined
      }
    },
    dispose() {
      agent.dispose()
      for (const dispose of disposers.reverse()) dispose()
    },
  }
}
