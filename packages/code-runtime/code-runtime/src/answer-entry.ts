import type { CallAnswer } from './worker-protocol.ts'

/**
 * A binding call's answer as an entry of the sandbox prelude's `settleCalls` text: `[index, 1]`
 * (resolved with `undefined`), `[index, 1, value]` (the result's JSON text, checked and encoded by
 * the host), or `[index, 0, name, message]` / `[index, 0, name, message, code]` (rejected).
 */
export function answerEntry(index: number, answer: CallAnswer): string {
  if (answer.ok) return answer.text === undefined ? `[${index},1]` : `[${index},1,${answer.text}]`
  const code = answer.code === undefined ? '' : `,${JSON.stringify(answer.code)}`
  return `[${index},0,${JSON.stringify(answer.name)},${JSON.stringify(answer.message)}${code}]`
}
