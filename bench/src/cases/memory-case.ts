import { createMemorySession } from '@deepseek-ai/dsh-session'
import { runStep } from '../adapters/run-step.ts'
import { countAllocatedBytes } from '../harness/allocation.ts'
import { forceGc } from '../harness/gc.ts'
import { summarize } from '../harness/stats.ts'
import type { BenchOptions, CaseResult, Log } from '../types.ts'
import { createDshRuntime, expectSums, stepBlocks, type AddTool } from './dsh-runtime.ts'

const STEP = 100

function settledHeap(): number {
  forceGc()
  forceGc()
  return process.memoryUsage().heapUsed
}

const once = (value: number) => summarize([value])

/**
 * `memory`: `memoryCalls` calls in `executeToolCalls` steps of 100, after a warm-up of a tenth as
 * many. Each step records into a fresh memory session that is dropped after it, so what stays on
 * the heap is what the runtime itself keeps (listeners, caches, timers), not the log.
 */
export async function runMemoryCase(
  options: BenchOptions,
  log: Log,
  variant: { readonly timeout: boolean },
): Promise<CaseResult[]> {
  const runtime = createDshRuntime()
  const name: AddTool = variant.timeout ? 'add_timeout' : 'add'
  let step = 0
  const runSteps = async (count: number) => {
    for (let i = 0; i < count; i++) {
      runtime.loop.session = createMemorySession()
      step += 1
      const { results } = await runStep({
        ctx: runtime.agent,
        turn: 1,
        step,
        toolCalls: stepBlocks(step, name, STEP),
        acceptContext: () => {},
      })
      if (i === 0) expectSums('memory', results, STEP)
    }
  }
  const steps = Math.max(1, Math.round(options.memoryCalls / STEP))
  await runSteps(Math.max(1, Math.round(steps / 10)))
  const heapBefore = settledHeap()
  const cpuStart = process.cpuUsage()
  const start = performance.now()
  const allocated = await countAllocatedBytes(() => runSteps(steps))
  const wallMs = performance.now() - start
  const cpu = process.cpuUsage(cpuStart)
  const heapAfter = settledHeap()
  const calls = steps * STEP
  const id = variant.timeout ? 'memory.timeout' : 'memory'
  log(`${id}: heap growth ${((heapAfter - heapBefore) / calls).toFixed(2)} B/call over ${calls} calls`)
  return [
    {
      kind: 'figures',
      id,
      label: `memory: ${calls} calls in steps of ${STEP}${variant.timeout ? ', tool with timeoutMs (timer armed)' : ''}`,
      figures: [
        {
          name: 'heap growth per call after forced GC',
          unit: 'B',
          stats: once((heapAfter - heapBefore) / calls),
        },
        { name: 'bytes allocated per call', unit: 'B', stats: once(allocated / calls) },
        { name: 'peak RSS of the process', unit: 'MB', stats: once(process.resourceUsage().maxRSS / 1024) },
        {
          name: 'CPU per call (GC profiler running)',
          unit: 'µs',
          stats: once((cpu.user + cpu.system) / calls),
        },
        { name: 'wall per call (GC profiler running)', unit: 'µs', stats: once((wallMs * 1000) / calls) },
      ],
    },
  ]
}
