import type { Readable, Writable } from 'node:stream'
import type { DemoView } from '../progress/demo-view.ts'
import { askOnTerminal } from './ask-on-terminal.ts'
import type { Approver } from './create-approval-service.ts'

/**
 * Who answers calls that ask: `--yes` approves them; on a terminal a person is asked (the live view
 * pauses while the question is on screen); otherwise nobody, and they are denied saying so.
 */
export function chooseApprover(options: {
  readonly yes: boolean
  readonly tty: boolean
  readonly io: { readonly stdin: Readable; readonly stdout: Writable }
  readonly view: DemoView
}): Approver {
  const { io, view } = options
  if (options.yes) return { kind: 'yes' }
  if (!options.tty) return { kind: 'nobody' }
  return {
    kind: 'prompt',
    ask: async (request) => {
      view.pause()
      try {
        return await askOnTerminal({ input: io.stdin, output: io.stdout })(request)
      } finally {
        view.resume()
      }
    },
  }
}
