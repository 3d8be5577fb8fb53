import { types } from 'node:util'

export function numberProblem(value: number): string {
  if (Number.isNaN(value)) return 'is NaN'
  return value > 0 ? 'is Infinity' : 'is -Infinity'
}

/** Why a non-container value is not JSON, or `undefined` for strings, finite numbers and booleans. */
export function primitiveProblem(value: unknown): string | undefined {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return undefined
    case 'number':
      return value - value === 0 ? undefined : numberProblem(value)
    case 'bigint':
      return 'is a BigInt'
    case 'symbol':
      return 'is a symbol'
    case 'function':
      return types.isProxy(value) ? 'is a Proxy' : 'is a function'
    default:
      return `is of unsupported type ${typeof value}`
  }
}
