import { setTimeout as sleep } from 'node:timers/promises'
import { z } from 'zod'
import { createMemorySession } from '@deepseek-ai/dsh-session'
import { defineTool, type ToolExecutionInput } from '@deepseek-ai/dsh-tools'
import type { ToolCallBlock } from '@deepseek-ai/dsh-llm'
import { runStep } from '../adapters/run-step.ts'
import { batchByBatchMakespan, greedyPoolMakespan, heavyTailedDurations } from '../harness/pool-model.ts'
import { summarize } from '../harness/stats.ts'
import type { BenchOptions, CaseResult, Log } from '../types.ts'
import { createDshRuntime } from './dsh-runtime.ts'

const CAP = 10
const SEED = 15

/**
 * `pool_efficiency`: a step of heavy-tailed sleeps through `executeToolCalls` (rolling pool of 10),
 * and the same calls through a batch-by-batch scheduler (`executeBatch` of 10 at a time). Each run's
 * makespan is divided by the ideal in-order greedy pool over the durations its bodies actually
 * measured, so timer lateness inside a body is not charged to the scheduler.
 */
export async function runPoolEfficiency(options: BenchOptions, log: Log): Promise<CaseResult[]> {
  const durations = heavyTailedDurations({ count: options.poolCalls, seed: SEED, maxMs: options.poolMaxMs })
  const runtime = createDshRuntime({ maxParallelToolCalls: CAP })
  let measured: number[] = []
  runtime.root.tools.register(
    defineTool({
      name: 'sleep',
      description: 'Sleep for the i-th duration',
      parameters: z.object({ i: z.number() }),
      isConcurrencySafe: () => true,
      execute: async ({ i }) => {
        const start = performance.now()
        await sleep(durations[i]!)
        measured[i] = performance.now() - start
        return i
      },
    }),
  )
  const args = (i: number) => `{"i":${i}}`
  const blocks = (round: number): ToolCallBlock[] =>
    durations.map((_, i) => ({ type: 'tool-call', id: `r${round}_${i}`, name: 'sleep', arguments: args(i) }))
  const inputs = (round: number): ToolExecutionInput[] =>
    durations.map((_, i) => ({ callId: `b${round}_${i}`, name: 'sleep', arguments: args(i) }))

  const pool: number[][] = [[], [], [], []]
  const batch: number[][] = [[], []]
  for (let round = 0; round < options.poolRounds; round++) {
    measured = []
    runtime.loop.session = createMemorySession()
    let start = performance.now()
    const { results } = await runStep({
      ctx: runtime.agent,
      turn: 1,
      step: round + 1,
      toolCalls: blocks(round),
      acceptContext: () => {},
    })
    const poolMakespan = performance.now() - start
    if (results.some((result) => result.isError) || measured.length !== durations.length) {
      throw new Error('pool_efficiency: a call failed in the rolling pool')
    }
    const ideal = greedyPoolMakespan(measured, CAP)
    pool[0]!.push(poolMakespan)
    pool[1]!.push(ideal)
    pool[2]!.push(poolMakespan / ideal)
    pool[3]!.push(batchByBatchMakespan(measured, CAP) / ideal)

    measured = []
    const all = inputs(round)
    start = performance.now()
    for (let i = 0; i < all.length; i += CAP) {
      const chunk = await runtime.agent.tools.executeBatch(all.slice(i, i + CAP), { maxParallel: CAP })
      if (chunk.some((result) => result.isError)) throw new Error('pool_efficiency: a call failed in a batch')
    }
    const batchMakespan = performance.now() - start
    batch[0]!.push(batchMakespan)
    batch[1]!.push(batchMakespan / greedyPoolMakespan(measured, CAP))
    log(
      `pool_efficiency round ${round + 1}: rolling pool ${pool[2]!.at(-1)!.toFixed(3)}× ideal, batch-by-batch ${batch[1]!.at(-1)!.toFixed(3)}× ideal`,
    )
  }
  const work = durations.reduce((sum, d) => sum + d, 0)
  return [
    {
      kind: 'figures',
      id: 'pool_efficiency',
      label: `pool_efficiency: ${options.poolCalls} heavy-tailed calls (seed ${SEED}, ${work.toFixed(0)} ms of sleeps), cap ${CAP}`,
      figures: [
        { name: 'rolling pool (executeToolCalls) makespan', unit: 'ms', stats: summarize(pool[0]!) },
        {
          name: 'ideal in-order greedy pool over its measured durations',
          unit: 'ms',
          stats: summarize(pool[1]!),
        },
        { name: 'rolling pool ÷ ideal', unit: '×', stats: summarize(pool[2]!) },
        {
          name: 'batch-by-batch over the same measured durations ÷ ideal (model)',
          unit: '×',
          stats: summarize(pool[3]!),
        },
        {
          name: 'batch-by-batch (executeBatch of 10 at a time) makespan',
          unit: 'ms',
          stats: summarize(batch[0]!),
        },
        {
          name: 'batch-by-batch ÷ ideal over its measured durations',
          unit: '×',
          stats: summarize(batch[1]!),
        },
      ],
    },
  ]
}
