import { createContext } from '@deepseek-ai/dsh-context'
import { permissions, type PermissionsConfig } from '@deepseek-ai/dsh-permissions'
import { defineTool, installTools, type ToolExecutionResult } from '@deepseek-ai/dsh-tools'
import { z } from 'zod'
import type { BashOracle, OracleMode } from '../oracle/bash-oracle.ts'

/**
 * A `bash` tool behind permissions(ctx) in a fresh context: `run` calls it through
 * ctx.tools.execute, `ran` lists the commands its body ran, `asked` those approval was asked
 * about (and rejected: a call that is asked does not run either).
 */
export function bashToolHarness(
  layers: PermissionsConfig['layers'],
  defaultDecision: PermissionsConfig['defaultDecision'] = 'ask',
) {
  const ctx = createContext()
  installTools(ctx)
  const ran: string[] = []
  const asked: string[] = []
  ctx.tools.register(
    defineTool({
      name: 'bash',
      description: 'Run a shell command',
      parameters: z.object({ command: z.string() }),
      execute: ({ command }) => {
        ran.push(command)
        return 'ran'
      },
    }),
  )
  ctx.provide('approval', {
    request: async ({ args }) => {
      asked.push(String(args['command']))
      return { type: 'rejected', feedback: 'no' }
    },
  })
  permissions(ctx, {
    workspaceRoot: '/repo',
    toolArguments: { bash: { command: 'command' } },
    layers,
    defaultDecision,
  })
  let id = 0
  const run = async (command: string): Promise<ToolExecutionResult> =>
    ctx.tools.execute({ callId: `c${++id}`, name: 'bash', arguments: JSON.stringify({ command }) })
  return { ran, asked, run }
}

/** The error code of a call that did not run, or 'ran'. */
export const denied = (result: ToolExecutionResult) => (result.isError ? result.error.info?.code : 'ran')

/** The programs a real bash executes for `command`, as the oracle's stubs recorded them. */
export async function executedBy(
  oracle: BashOracle,
  command: string,
  mode: OracleMode = { builtins: 'path', wrappers: 'stub' },
): Promise<string[]> {
  const [run] = await oracle.run([command], mode)
  return run!.executed.map((argv) => argv.join(' '))
}
