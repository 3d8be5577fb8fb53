/** Who stopped the current turn: a person (Ctrl-C, SIGINT) or the scripted story showing an abort. */
export type InterruptSource = 'user' | 'story'

export interface InterruptHooks {
  /** The turn is being stopped: started calls drain, the rest are cancelled. */
  readonly onStop: (source: InterruptSource) => void
  /** A second Ctrl-C: the demo quits without waiting for the drain. */
  readonly onQuit: () => void
}

/**
 * Ctrl-C for the demo. The first SIGINT aborts the current turn's signal (the loop drains it, T26,
 * T38); a second one quits at once. The story can press it too (`trigger('story')`), which a real
 * Ctrl-C then overrides: the demo stops instead of resuming. `nextTurn()` gives a fresh signal for
 * a turn that follows a story interrupt.
 */
export function createInterrupts(hooks: InterruptHooks, target: NodeJS.Process = process) {
  let controller = new AbortController()
  let source: InterruptSource | undefined
  let userPresses = 0

  const stop = (by: InterruptSource): void => {
    if (by === 'user' || source === undefined) source = by
    if (!controller.signal.aborted) {
      controller.abort(new Error(by === 'user' ? 'interrupted (Ctrl-C)' : 'interrupted by the demo story'))
    }
    hooks.onStop(by)
  }
  const onSigint = (): void => {
    userPresses += 1
    if (userPresses > 1) hooks.onQuit()
    else stop('user')
  }
  target.on('SIGINT', onSigint)

  return {
    signal: (): AbortSignal => controller.signal,
    /** Who interrupted the turn that used the current signal, if anyone. */
    source: (): InterruptSource | undefined => source,
    trigger: (by: InterruptSource): void => stop(by),
    /** A fresh signal after a story interrupt (a person's Ctrl-C is final). */
    nextTurn(): void {
      if (source === 'user') return
      controller = new AbortController()
      source = undefined
    },
    dispose(): void {
      target.off('SIGINT', onSigint)
    },
  }
}

export type Interrupts = ReturnType<typeof createInterrupts>
