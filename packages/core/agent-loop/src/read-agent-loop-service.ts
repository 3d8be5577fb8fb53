import type { Context } from '@deepseek-ai/dsh-context'
import { describeValue } from '@deepseek-ai/dsh-llm'
import { AgentLoopError } from './base/errors.ts'
import type { AgentLoopService } from './base/types.ts'

/**
 * `ctx.agentLoop`, checked: a hand-made service gets the same validation as `createAgent`'s
 * (T23: the pool size is a positive integer), and a missing one a message saying how to provide it.
 */
export function readAgentLoopService(ctx: Context, where: string): AgentLoopService {
  const service = (ctx as { agentLoop?: unknown }).agentLoop as Partial<AgentLoopService> | undefined
  if (typeof service !== 'object' || service === null) {
    throw new AgentLoopError({
      code: 'NOT_INSTALLED',
      message: `${where}: ctx.agentLoop is not available in scope "${ctx.scope.name}"; run inside an agent's ctx (createAgent) or provide an AgentLoopService`,
    })
  }
  const { config, session } = service
  const maxParallel = (config as Partial<AgentLoopService['config']> | undefined)?.maxParallelToolCalls
  if (typeof maxParallel !== 'number' || !Number.isSafeInteger(maxParallel) || maxParallel < 1) {
    throw new AgentLoopError({
      code: 'INVALID_CONFIG',
      message: `${where}: ctx.agentLoop.config.maxParallelToolCalls must be a positive integer, got ${describeValue(maxParallel)}`,
    })
  }
  if (typeof session !== 'object' || session === null || typeof session.append !== 'function') {
    throw new AgentLoopError({
      code: 'NOT_INSTALLED',
      message: `${where}: ctx.agentLoop.session must be a Session, got ${describeValue(session)}`,
    })
  }
  return service as AgentLoopService
}
