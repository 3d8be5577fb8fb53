import { z } from 'zod'
import { defineTool } from '@deepseek-ai/dsh-tools'
import { sleep } from './sleep.ts'

/**
 * How many steps' time a `long_task` call may take before its timeout ends it: far more than the
 * story's short jobs take (up to 3 steps), as the timeout's timer and the job's own are armed apart,
 * and a loaded machine can run a process late by tens of milliseconds between the two.
 */
export const LONG_TASK_TIMEOUT_STEPS = 10

/**
 * What a job waits for once its steps are done, before it may report them: `undefined` to finish
 * at once, or a promise that settles when the job may finish (rejecting ends it with that reason).
 */
export type JobGate = (signal: AbortSignal) => Promise<void> | undefined

/**
 * `long_task`: a deliberately slow job. Each step takes `stepMs`; a call longer than
 * `LONG_TASK_TIMEOUT_STEPS` steps is ended by its timeout. Parallel-safe, but two calls of the same
 * job never overlap: the job's name is the call's resource key. Honours its signal (abort, timeout).
 * A `gate` holds a job whose steps are done until an event (the story's Ctrl-C), so a job it will
 * interrupt cannot finish first however slow the machine is.
 */
export function longTaskTool(options: { readonly stepMs: number; readonly gate?: JobGate | undefined }) {
  const { stepMs, gate } = options
  return defineTool({
    // the limits below (string lengths) are outside strict function calling's subset
    strict: false,
    name: 'long_task',
    description: `Run a slow job of some steps (each takes a while). Calls of the same job run one after another; a call of more than ${LONG_TASK_TIMEOUT_STEPS} steps times out.`,
    parameters: z.object({
      steps: z.number().int().min(1).max(1000),
      job: z
        .string()
        .min(1)
        .max(40)
        .optional()
        .describe('The job’s name (default "job"); calls of one job never overlap'),
    }),
    isConcurrencySafe: () => true,
    concurrencyKey: ({ job = 'job' }) => `job:${job}`,
    timeoutMs: LONG_TASK_TIMEOUT_STEPS * stepMs,
    presentCall: ({ steps, job = 'job' }) => `long_task ${job} ×${steps}`,
    execute: async ({ steps, job = 'job' }, exec) => {
      const started = performance.now()
      await sleep(steps * stepMs, exec.signal)
      await gate?.(exec.signal)
      return `job ${JSON.stringify(job)}: ${steps} step${steps === 1 ? '' : 's'} done in ${Math.round(performance.now() - started)} ms`
    },
  })
}
