import type { CallView } from './call-view.ts'

/**
 * How long a call waited for a person's answer (up to `now` for a question still open): `own` for
 * its own approval, `nested` for its nested calls' (a program waits for them while they wait).
 */
export function approvalTime(
  call: Pick<CallView, 'approvalWaits'>,
  now: number = Number.NaN,
): { readonly own: number; readonly nested: number } {
  let own = 0
  let nested = 0
  for (const wait of call.approvalWaits) {
    const to = wait.to ?? now
    if (!(to >= wait.from)) continue
    if (wait.nested) nested += to - wait.from
    else own += to - wait.from
  }
  return { own, nested }
}
