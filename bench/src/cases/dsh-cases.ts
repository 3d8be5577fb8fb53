import { rmSync } from 'node:fs'
import { createMemorySession, openJsonlSession, type JsonlSession } from '@deepseek-ai/dsh-session'
import type { ExecuteToolCallsResult } from '@deepseek-ai/dsh-agent-loop'
import type { ToolExecutionResult } from '@deepseek-ai/dsh-tools'
import { runStep } from '../adapters/run-step.ts'
import type { TimedCase } from '../harness/measure-case.ts'
import {
  callInput,
  callInputs,
  createDshRuntime,
  expectSums,
  stepBlocks,
  type AddTool,
} from './dsh-runtime.ts'
import { createTempDir } from './temp-dir.ts'

const noContext = (): void => {}

export type ExecuteShape = 'object' | 'timeout' | 'default-timeout' | 'number' | 'observed'

const executeTools: Record<
  ExecuteShape,
  { readonly tool: AddTool; readonly id: string; readonly label: string }
> = {
  object: { tool: 'add', id: 'dsh.execute', label: 'dsh ctx.tools.execute (async body returning an object)' },
  timeout: {
    tool: 'add_timeout',
    id: 'dsh.execute.timeout',
    label: 'dsh ctx.tools.execute, tool with timeoutMs (the timer is armed and cleared each call)',
  },
  'default-timeout': {
    tool: 'add',
    id: 'dsh.execute.default-timeout',
    label: "dsh ctx.tools.execute under installTools' default (a five-minute timeout on every call)",
  },
  number: {
    tool: 'add_number',
    id: 'dsh.execute.number',
    label: 'dsh ctx.tools.execute, the cheapest shape (a plain function returning a number)',
  },
  observed: {
    tool: 'add',
    id: 'dsh.execute.observed',
    label:
      'dsh ctx.tools.execute with a tools/post-execute listener that only observes (as the otel plugin does)',
  },
}

/** `ctx.tools.execute` of the trivial tool in one of its shapes. */
export function executeCase(shape: ExecuteShape): TimedCase<ToolExecutionResult> {
  const runtime = createDshRuntime({}, { defaultTimeout: shape === 'default-timeout' })
  const { tool, id, label } = executeTools[shape]
  let observed = 0
  if (shape === 'observed') runtime.agent.on('tools/post-execute', (_call, next) => (observed++, next()))
  return {
    id,
    label,
    callsPerOp: 1,
    op: () => runtime.agent.tools.execute(callInput(tool)),
    verify: (result) => {
      expectSums('execute', [result], 1)
      if (shape === 'observed' && observed === 0)
        throw new Error('execute: the post-execute listener never ran')
    },
  }
}

/** `ctx.tools.executeBatch` of 100 parallel-safe calls: the scheduler without a session. */
export function batchCase(): TimedCase<ToolExecutionResult[]> {
  const runtime = createDshRuntime()
  return {
    id: 'dsh.executeBatch.100',
    label: 'dsh ctx.tools.executeBatch, 100 calls, no session',
    callsPerOp: 100,
    op: () => runtime.agent.tools.executeBatch(callInputs('add', 100)),
    verify: (results) => expectSums('executeBatch', results, 100),
  }
}

export interface StepShape {
  readonly calls: 10 | 100
  readonly mode: 'parallel' | 'exclusive'
  /** `jsonl`: durability `'write'` (one write per event); `jsonl-step`: `'step'` (one write per step, T59). */
  readonly store: 'memory' | 'jsonl' | 'jsonl-step'
}

export const stepCaseId = (shape: StepShape) => `dsh.step.${shape.calls}.${shape.mode}.${shape.store}`

/**
 * One `executeToolCalls` step per op. Each round records into a fresh session: a new memory
 * session, or a new JSONL file in a private temp dir, with durability `'write'` or `'step'` (whose
 * one write per step `executeToolCalls` makes before it resolves, so it is inside the clock).
 */
export function stepCase(shape: StepShape): TimedCase<ExecuteToolCallsResult> {
  const runtime = createDshRuntime()
  const dir = shape.store === 'memory' ? undefined : createTempDir('step')
  const durability = shape.store === 'jsonl-step' ? 'step' : 'write'
  const name = shape.mode === 'parallel' ? 'add' : 'add_exclusive'
  let step = 0
  let round = 0
  let file: JsonlSession | undefined
  return {
    id: stepCaseId(shape),
    label: `dsh executeToolCalls, ${shape.calls} ${shape.mode} calls, ${dir === undefined ? 'memory session' : `JSONL session ('${durability}')`}`,
    callsPerOp: shape.calls,
    beforeRound: () => {
      if (dir === undefined) runtime.loop.session = createMemorySession()
      else {
        file = openJsonlSession(dir.file(`round-${++round}.jsonl`), { durability })
        runtime.loop.session = file
      }
    },
    afterRound: () => {
      if (file === undefined) return
      file.close()
      rmSync(file.path)
      file = undefined
    },
    dispose: () => dir?.remove(),
    op: () => {
      step += 1
      return runStep({
        ctx: runtime.agent,
        turn: 1,
        step,
        toolCalls: stepBlocks(step, name, shape.calls),
        acceptContext: noContext,
      })
    },
    verify: ({ results }) => {
      expectSums('executeToolCalls', results, shape.calls)
      const recorded = runtime.loop.session.read({ types: ['tool/call', 'tool/result'] }).length
      if (recorded !== 2 * shape.calls) {
        throw new Error(
          `executeToolCalls: expected ${2 * shape.calls} tool events in the session, got ${recorded}`,
        )
      }
      // (`uncommitted` is absent in a baseline built before durability 'step': nothing to check there)
      const uncommitted = (file as { readonly uncommitted?: number } | undefined)?.uncommitted ?? 0
      if (uncommitted !== 0) {
        throw new Error(`executeToolCalls: ${uncommitted} events not written when the step resolved`)
      }
    },
  }
}
