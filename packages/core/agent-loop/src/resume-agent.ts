import type { AnySession } from '@deepseek-ai/dsh-session'
import type { Agent, CreateAgentOptions, ResumeOptions } from './agent-types.ts'
import { createAgent } from './create-agent.ts'
import type { TurnResult } from './base/types.ts'

/**
 * `createAgent` then `agent.resume()`: for a session reopened after a crash (e.g. with
 * `openJsonlSession`, or a database store's `open`), or paused at an approval (pass the answer as
 * `approval`). If resuming fails, the agent is disposed and the error rethrown.
 * @example
 * const { agent, result } = await resumeAgent({ ctx, name: 'helper', model, session: openJsonlSession(path) })
 */
export async function resumeAgent<S extends AnySession>(
  options: CreateAgentOptions<S> & ResumeOptions,
): Promise<{ readonly agent: Agent<S>; readonly result: TurnResult | undefined }> {
  const { signal, onEvent, approval, elicitation, ...agentOptions } = options
  const agent = createAgent(agentOptions)
  try {
    const result = await agent.resume({
      ...(signal === undefined ? {} : { signal }),
      ...(onEvent === undefined ? {} : { onEvent }),
      ...(approval === undefined ? {} : { approval }),
      ...(elicitation === undefined ? {} : { elicitation }),
    })
    return { agent, result }
  } catch (error) {
    agent.dispose()
    throw error
  }
}
