import type { Readable, Writable } from 'node:stream'
import { isCancel, select } from '@clack/prompts'
import type { ApprovalRequest } from '@deepseek-ai/dsh-tools'
import type { ApprovalAnswer } from './create-approval-service.ts'

/** What the question shows of a call's arguments: each one on a line, long text cut. */
function describeArgs(args: ApprovalRequest['args']): string {
  return Object.entries(args)
    .map(([key, value]) => {
      const text = typeof value === 'string' ? value : JSON.stringify(value)
      const firstLine = text.split('\n')[0] ?? ''
      const cut = firstLine.length > 60 || firstLine.length < text.length
      return `${key}: ${cut ? `${firstLine.slice(0, 60)}… (${text.length} characters)` : firstLine}`
    })
    .join(', ')
}

/**
 * Asks a person on the terminal whether a call may run (@clack/prompts): allow once, allow for the
 * session, or deny. Escape or Ctrl-C cancels, and so does the call's own signal (an abort).
 */
export function askOnTerminal(io: { readonly input: Readable; readonly output: Writable }) {
  return async (request: ApprovalRequest): Promise<ApprovalAnswer> => {
    const answer = await select<ApprovalAnswer>({
      message: `Allow ${request.toolName} (${describeArgs(request.args)})?${request.reason === undefined ? '' : `\n  ${request.reason}`}`,
      options: [
        { value: 'once', label: 'Allow once' },
        { value: 'session', label: 'Allow for this session', hint: 'same arguments only' },
        { value: 'deny', label: 'Deny' },
      ],
      input: io.input,
      output: io.output,
      signal: request.signal,
    })
    return isCancel(answer) ? 'cancel' : answer
  }
}
