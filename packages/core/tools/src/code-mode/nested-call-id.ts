/**
 * The call id of a `run_code` program's nested call (T33): derived from its outer call's id and the
 * runtime's program-order index, `<parent>:code:<index>`. Unique as long as the outer ids are: the
 * agent loop gives every call an id unique in its session that no earlier id extends this way.
 * @example
 * nestedCallId('call_7', 2) // 'call_7:code:2'
 */
export function nestedCallId(parentCallId: string, index: number): string {
  return `${parentCallId}:code:${index}`
}
