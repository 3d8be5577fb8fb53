import type { ApprovalDecision, ApprovalRequest, ApprovalService } from '@deepseek-ai/dsh-tools'

/** What a person answered at the prompt (`cancel`: they pressed Ctrl-C or Escape). */
export type ApprovalAnswer = 'once' | 'session' | 'deny' | 'cancel'

/** Who answers `ask` decisions. */
export type Approver =
  /** `--yes`: every call that asks is allowed once. */
  | { readonly kind: 'yes' }
  /** A terminal: a person is asked. */
  | { readonly kind: 'prompt'; readonly ask: (request: ApprovalRequest) => Promise<ApprovalAnswer> }
  /** No terminal and no `--yes`: nobody can answer, so such calls are denied, saying how to allow them. */
  | { readonly kind: 'nobody' }

/** Why a call that asks is denied without a terminal; the model and the progress line both show it. */
export const NO_TERMINAL_REASON =
  'there is no terminal to ask on; run the demo with --yes to approve such calls'

export interface ApprovalHooks {
  /** The call is waiting for a person (`true`), or no longer (`false`, with what was decided). */
  readonly onWaiting: (callId: string, waiting: boolean, outcome?: string) => void
  /** The person cancelled the prompt: the demo treats it as Ctrl-C. */
  readonly onCancel: () => void
}

/** The demo's `ctx.approval`. One question at a time: policy stages run in model order anyway. */
export function createApprovalService(approver: Approver, hooks: ApprovalHooks): ApprovalService {
  return {
    async request(request): Promise<ApprovalDecision> {
      switch (approver.kind) {
        case 'yes':
          hooks.onWaiting(request.callId, false, 'approved by --yes')
          return { type: 'allowed-once' }
        case 'nobody':
          hooks.onWaiting(request.callId, false, 'not approved: no terminal (use --yes)')
          return { type: 'unavailable', reason: NO_TERMINAL_REASON }
        case 'prompt': {
          hooks.onWaiting(request.callId, true)
          const answer = await approver.ask(request)
          switch (answer) {
            case 'once':
              hooks.onWaiting(request.callId, false, 'approved once')
              return { type: 'allowed-once' }
            case 'session':
              hooks.onWaiting(request.callId, false, 'approved for this session')
              return { type: 'allowed-for-session' }
            case 'deny':
              hooks.onWaiting(request.callId, false, 'denied by you')
              return { type: 'rejected', feedback: 'the user said no' }
            case 'cancel':
              hooks.onWaiting(request.callId, false, 'cancelled')
              hooks.onCancel()
              return { type: 'cancelled' }
            default: {
              const never: never = answer
              throw new Error(`unknown answer ${String(never)}`)
            }
          }
        }
        default: {
          const never: never = approver
          throw new Error(`unknown approver ${String(never)}`)
        }
      }
    },
  }
}
