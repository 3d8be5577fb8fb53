const NESTED = /^(.+):code:(?:0|[1-9][0-9]*)$/

/**
 * The outer call id a call id would be the nested call of (`nestedCallId`'s inverse), or undefined
 * when the id does not have that shape. Says nothing of whether such a call was made: the loop uses
 * it to keep a model's id from colliding with the ids a program's calls will get.
 * @example
 * nestedCallParent('call_7:code:2') // 'call_7'
 */
export function nestedCallParent(callId: string): string | undefined {
  // most ids are not nested: one substring search before the expression
  if (!callId.includes(':code:')) return undefined
  return NESTED.exec(callId)?.[1]
}
