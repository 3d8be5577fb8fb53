import type { AnyToolDefinition } from '@deepseek-ai/dsh-tools'

/**
 * How many times, in all, the body of an idempotent call may begin before a resume stops running it
 * again (T51): a body that crashes its process every time must not turn every resume into another
 * crash. Past it the call is only re-attached (T64).
 */
export const RESUME_ATTEMPTS = 3

/** What resuming does with one call that has no result. */
export type ResumeVerdict =
  /** Run it through the whole pipeline; `attempt` is recorded on its `tool/began`. */
  | { readonly kind: 'run'; readonly attempt: number }
  /**
   * Its body may have begun and must not begin again (T64): only an outcome kept under its key is
   * collected (remote dispatch re-attaches to its job); the call is `INTERRUPTED` otherwise.
   */
  | { readonly kind: 'reattach' }
  /** Its tool is gone: nothing can tell what it did. */
  | { readonly kind: 'interrupted' }

/**
 * T50/T51/T64: a call of a tool with `effects: 'external'` whose body never began (no `tool/began`)
 * is run; an `idempotent: true` call is run again with the same key while it has attempts left; any
 * other call may have taken effect, so it is only re-attached. A tool without `effects: 'external'`
 * records no start, so a call of it that is not idempotent may have run: re-attached. The same holds
 * for the nested calls of a `run_code` program (T63).
 */
export function resumeVerdict(tool: AnyToolDefinition | undefined, began: number): ResumeVerdict {
  if (tool === undefined) return { kind: 'interrupted' }
  if (tool.effects === 'external' && began === 0) return { kind: 'run', attempt: 1 }
  if (tool.idempotent === true && began < RESUME_ATTEMPTS) return { kind: 'run', attempt: began + 1 }
  return { kind: 'reattach' }
}
