import { describeThrown } from './pipeline/results.ts'

/**
 * The model-facing message of each synthetic outcome, written once: the pipeline, the scheduler
 * and the loop all build these results, and the model must read the same words from each.
 */
export const toolMessages = {
  cancelledBeforeStart: (toolName: string): string =>
    `Tool call "${toolName}" was cancelled before it started.`,
  schedulerFailed: (cause?: unknown): string =>
    cause === undefined
      ? 'The tool scheduler failed before this call could finish.'
      : `The tool scheduler failed before this call could finish: ${describeThrown(cause)}`,
} as const
