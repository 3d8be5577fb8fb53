import type { ToolErrorCode, ToolExecutionFailure } from '@deepseek-ai/dsh-tools'
import type { RemoteFailureName } from '../protocol/failure-names.ts'

/** A failed result made by remote dispatch: the text the model reads, a stable code and name. */
export function remoteFailure(
  code: ToolErrorCode,
  name: RemoteFailureName | 'InvalidToolOutput',
  message: string,
): ToolExecutionFailure {
  return {
    isError: true,
    content: [{ type: 'text', text: message }],
    error: { message, info: { name, code } },
  }
}

/** The failure a remote body left for the wrapper to answer with (see `remote-body.ts`). */
export class RemoteOutcome extends Error {
  constructor(readonly result: ToolExecutionFailure) {
    super(result.error.message)
    this.name = 'RemoteOutcome'
  }
}
