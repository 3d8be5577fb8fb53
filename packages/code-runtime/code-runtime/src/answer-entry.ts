import type { CallAnswer } from './worker-protocol.ts'

/**
 * A binding call's answer as it enters the sandbox prelude's `settleCalls` text, one flat JSON
 * list of the answers of a batch (the worker joins the entries with commas inside brackets; the
 * parser then builds no array per answer): `index,2` (resolved with `undefined`), `index,1,value`
 * (the result's JSON text, checked and encoded by the host), or `index,0,name,message,code` with
 * `code` `null` when there is none (rejected).
 */
export function answerEntry(index: number, answer: CallAnswer): string {
  if (answer.ok) return answer.text === undefined ? `${index},2` : `${index},1,${answer.text}`
  const code = answer.code === undefined ? 'null' : JSON.stringify(answer.code)
  return `${index},0,${JSON.stringify(answer.name)},${JSON.stringify(answer.message)},${code}`
}
