import { clip, MAX_ECHOED_NAME } from './clip.ts'
import { describeThrown } from './results.ts'

/** A tool name as the model may have made it up: clipped, so an echo stays short. */
const named = (toolName: string): string => clip(toolName, MAX_ECHOED_NAME)
/** A reason that says nothing: none, empty, or only whitespace. */
const blank = (text: string | undefined): text is undefined => text === undefined || text.trim() === ''
/** `: detail` when a detail that says something was given, else `.`. */
const detailed = (detail: string | undefined): string => (blank(detail) ? '.' : `: ${detail}`)

/**
 * Who gave a call the value a message is about: the body (`Tool "x" returned a value that`), or a
 * stage that replaced it (`A tools/post-execute listener replaced the value of tool "x" with one that`).
 */
const valueFrom = (toolName: string, replacedBy: string | undefined, what = 'a value'): string =>
  replacedBy === undefined
    ? `Tool "${named(toolName)}" returned ${what}`
    : `${replacedBy} replaced the value of tool "${named(toolName)}" with ${what === 'a value' ? 'one' : what}`

/**
 * The model-facing message of every outcome the pipeline builds, written once: the pipeline, the
 * scheduler and the loop all produce these results, and the model must read the same words from
 * each. Names are clipped (a made-up 100,000-character name stays short) and thrown values are
 * described with `describeThrown`, which never throws.
 */
export const toolMessages = {
  // --- synthetic outcomes (no body ran, or it was cut off)
  cancelledBeforeStart: (toolName: string): string =>
    `Tool call "${named(toolName)}" was cancelled before it started.`,
  schedulerFailed: (cause?: unknown): string =>
    cause === undefined
      ? 'The tool scheduler failed before this call could finish.'
      : `The tool scheduler failed before this call could finish: ${describeThrown(cause)}`,
  aborted: (toolName: string): string => `Tool "${named(toolName)}" was aborted before it finished.`,
  abortedWhileChecked: (toolName: string): string =>
    `Tool "${named(toolName)}" was aborted while its result was being checked.`,
  timedOut: (toolName: string, timeoutMs: number): string =>
    `Tool "${named(toolName)}" timed out after ${timeoutMs} ms.`,
  /** `stage` names what hung: "a tools/pre-execute listener", "a guard", … */
  overBudget: (toolName: string, stage: string, budgetMs: number): string =>
    `Tool "${named(toolName)}" failed: ${stage} did not finish within the ${budgetMs} ms policy budget.`,

  // --- arguments
  unknownTool: (toolName: string, available: readonly string[], maxListed: number): string => {
    const listed =
      available.length > maxListed ? `${available.slice(0, maxListed).join(', ')}, …` : available.join(', ')
    return `Unknown tool "${named(toolName)}". Available tools: ${available.length > 0 ? listed : 'none'}.`
  },
  invalidArguments: (toolName: string, problem: string): string =>
    `Invalid arguments for tool "${named(toolName)}": ${problem}`,
  validationFailed: (toolName: string, problem: string): string =>
    `Argument validation for tool "${named(toolName)}" failed: ${problem}`,

  // --- policy
  preExecuteInvalid: (toolName: string, problem?: string): string =>
    `A tools/pre-execute listener returned an invalid decision for "${named(toolName)}"${problem === undefined ? '.' : `: ${problem}.`}`,
  /** T36: arguments a policy rewrote (`allow({ args })`) that the tool's schema refuses. */
  rewrittenArgumentsInvalid: (toolName: string, problem: string): string =>
    `The arguments a tools/pre-execute listener rewrote for tool "${named(toolName)}" are invalid: ${problem}`,
  rewritesUnsettled: (toolName: string, passes: number): string =>
    `tools/pre-execute listeners rewrote the arguments of "${named(toolName)}" ${passes} times without settling; a rewrite must lead to a decision that rewrites nothing more.`,
  preExecuteFailed: (toolName: string, error: unknown): string =>
    `A tools/pre-execute listener failed for "${named(toolName)}": ${describeThrown(error)}`,
  /** A blank reason still gives the model a message that says what happened (T15). */
  denied: (toolName: string, reason: string): string =>
    blank(reason)
      ? `Tool "${named(toolName)}" was denied (no reason was given).`
      : `Tool "${named(toolName)}" was denied: ${reason}`,
  noApprovalService: (toolName: string, reason: string | undefined): string =>
    `Tool "${named(toolName)}" needs approval${reason === undefined ? '' : ` (${reason})`}, but no approval service is installed.`,
  approvalFailed: (toolName: string, error: unknown): string =>
    `Tool "${named(toolName)}" was not approved: the approval service failed (${describeThrown(error)}).`,
  approvalInvalid: (toolName: string): string =>
    `Tool "${named(toolName)}" was not approved: the approval service returned an invalid decision.`,
  approvalRejected: (toolName: string, feedback: string | undefined): string =>
    `The user rejected the call to "${named(toolName)}"${detailed(feedback)}`,
  approvalCancelled: (toolName: string): string => `Approval for "${named(toolName)}" was cancelled.`,
  approvalPending: (toolName: string): string =>
    `Tool "${named(toolName)}" was not approved: its approval is pending, and this call cannot wait for an answer.`,
  approvalUnavailable: (toolName: string, reason: string | undefined): string =>
    `Approval for "${named(toolName)}" is unavailable${detailed(reason)}`,
  guardFailed: (toolName: string, error: unknown): string =>
    `Tool "${named(toolName)}" was denied: a guard failed (${describeThrown(error)}).`,
  guardInvalid: (toolName: string): string =>
    `Tool "${named(toolName)}" was denied: a guard returned an invalid verdict.`,

  // --- around and in the body
  wrapperFailed: (toolName: string, error: unknown): string =>
    `A tools/execute wrapper failed for "${named(toolName)}": ${describeThrown(error)}`,
  wrapperInvalidResult: (toolName: string): string =>
    `A tools/execute wrapper returned something that is not a tool result for "${named(toolName)}".`,
  bodyStartRefused: (toolName: string, error: unknown): string =>
    `Tool "${named(toolName)}" did not run: its start could not be recorded (${describeThrown(error)}).`,
  notRunAgain: (toolName: string): string =>
    `Tool call "${named(toolName)}" was interrupted: the process stopped after its body may have begun, and the session was resumed; it was not run again, so it may or may not have taken effect.`,
  toolFailed: (toolName: string, error: unknown): string =>
    `Tool "${named(toolName)}" failed: ${describeThrown(error)}`,
  /** `replacedBy`: who replaced the body's value ("A tools/post-execute listener"), if not the body. */
  outputSchemaBroken: (toolName: string, issues: string, replacedBy?: string): string =>
    `${valueFrom(toolName, replacedBy)} that breaks its output schema: ${issues}`,
  outputValidationFailed: (toolName: string, error: unknown): string =>
    `Output validation for tool "${named(toolName)}" failed: ${describeThrown(error)}`,
  valueNotLossless: (toolName: string, where: string, reason: string, replacedBy?: string): string =>
    `${valueFrom(toolName, replacedBy)} that is not lossless JSON: ${where} ${reason}`,
  renderFailed: (toolName: string, error: unknown): string =>
    `Tool "${named(toolName)}" could not render its value: ${describeThrown(error)}`,
  resultTooLarge: (
    toolName: string,
    bytes: number,
    limit: number,
    exact: boolean,
    replacedBy?: string,
  ): string =>
    `${valueFrom(toolName, replacedBy, `${exact ? `${bytes}` : `at least ${bytes}`} bytes of result`)}; the limit is ${limit} bytes (maxResultBytes). Return less (a page, a summary, a path to the full data) or raise the limit.`,

  /** `deferred`: the body's own `exec.deferContext` calls; else contexts a result carried. */
  contextsTooLarge: (toolName: string, bytes: number, limit: number, deferred: boolean): string =>
    `Tool "${named(toolName)}" ${deferred ? 'deferred' : 'produced'} ${bytes} bytes of context for the next message${deferred ? ' (exec.deferContext)' : ''}; the limit is ${limit} bytes (maxResultBytes). Defer less (a summary, a path to the full text) or raise the limit.`,
  messageTooLarge: (toolName: string, bytes: number, limit: number): string =>
    `Tool "${named(toolName)}" produced a failure whose message is ${bytes} bytes; the limit is ${limit} bytes (maxResultBytes).`,

  // --- after the body
  /** The feedback is the whole message; a blank one is replaced by a stable message (T15). */
  blocked: (toolName: string, feedback: string): string =>
    blank(feedback)
      ? `The result of tool "${named(toolName)}" was withheld by a tools/post-execute listener (no reason was given).`
      : feedback,
  postExecuteInvalid: (toolName: string): string =>
    `A tools/post-execute listener returned an invalid decision for "${named(toolName)}".`,
  postExecuteFailed: (toolName: string, error: unknown): string =>
    `A tools/post-execute listener failed for "${named(toolName)}": ${describeThrown(error)}`,
  finalizeContentAsync: (toolName: string): string =>
    `finalizeContent of "${named(toolName)}" must be synchronous; it returned a promise.`,
  finalizeContentFailed: (toolName: string, error: unknown): string =>
    `finalizeContent of "${named(toolName)}" failed: ${describeThrown(error)}`,
  resultNotLossless: (toolName: string, where: string, reason: string): string =>
    `Tool "${named(toolName)}" produced a result that is not lossless JSON: ${where} ${reason}`,
  invalidContent: (toolName: string, problem: string): string =>
    `Tool "${named(toolName)}" produced invalid content: ${problem}`,
  invalidErrorInfo: (toolName: string, problem: string): string =>
    `Tool "${named(toolName)}" produced a failure with invalid error info: ${problem}`,
} as const
