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
  aborted: (toolName: string): string => `Tool "${toolName}" was aborted before it finished.`,
  abortedWhileChecked: (toolName: string): string =>
    `Tool "${toolName}" was aborted while its result was being checked.`,
  timedOut: (toolName: string, timeoutMs: number): string =>
    `Tool "${toolName}" timed out after ${timeoutMs} ms.`,
  /** `stage` names what hung: "a tools/pre-execute listener", "a guard", … */
  overBudget: (toolName: string, stage: string, budgetMs: number): string =>
    `Tool "${toolName}" failed: ${stage} did not finish within the ${budgetMs} ms policy budget.`,
} as const
