import type { CallBatch } from '../worker-protocol.ts'

/** The separators of the prelude's `takeCalls` text (a JSON text never holds them raw). */
const RECORD = '\u0001'
const FIELD = '\u0002'
const POSITION = /^(?:0|[1-9][0-9]{0,8})$/

/**
 * Reads what the prelude's `takeCalls` answered: the count, then one record per call, `binding` or
 * `binding FIELD text` (the binding's position among the run's names, the argument's JSON text).
 * The text comes from inside the sandbox, so everything is checked: the count must match the
 * records (a separator forged into a text changes it), stay within `room` and be at least one;
 * every position must name a binding; every text must fit `valueBytes` UTF-16 units (the host then
 * counts its UTF-8 bytes and parses it). Anything else is a program that tampered with the built-ins
 * the prelude relies on (an index setter on `Array.prototype` can feed the encoder's output): the
 * answer is then what is wrong, and the run fails as the program's doing.
 */
export function readTakenCalls(
  text: string,
  expected: {
    readonly first: number
    readonly room: number
    readonly bindings: number
    readonly valueBytes: number
  },
): CallBatch | { readonly problem: string } {
  const records = text.split(RECORD)
  const count = Number(records[0])
  if (!Number.isSafeInteger(count) || count < 1 || count > expected.room || records.length !== count + 1) {
    return {
      problem: `${records.length - 1} records under a count of ${JSON.stringify(records[0]?.slice(0, 12))}`,
    }
  }
  const bindings: number[] = []
  const texts: (string | undefined)[] = []
  for (let i = 1; i <= count; i++) {
    const record = records[i]!
    const split = record.indexOf(FIELD)
    const head = split === -1 ? record : record.slice(0, split)
    const position = POSITION.test(head) ? Number(head) : -1
    if (position < 0 || position >= expected.bindings) {
      return { problem: `a call names no binding (${JSON.stringify(head.slice(0, 12))})` }
    }
    const argument = split === -1 ? undefined : record.slice(split + 1)
    if (argument !== undefined && argument.length > expected.valueBytes) {
      return { problem: 'a call carries an argument larger than limits.valueBytes' }
    }
    bindings.push(position)
    texts.push(argument)
  }
  return { first: expected.first, bindings, texts }
}
