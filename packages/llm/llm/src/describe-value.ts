/**
 * A short, safe description of a value for error messages ("a string", "null", "an array of 3").
 * It never invokes getters, proxies traps beyond `typeof`/`Array.isArray`, or `toString`.
 */
export function describeValue(value: unknown): string {
  if (value === null) return 'null'
  if (value === undefined) return 'undefined'
  switch (typeof value) {
    case 'string':
      return value.length > 40 ? `a string of length ${value.length}` : `the string ${JSON.stringify(value)}`
    case 'number':
      return `the number ${String(value)}`
    case 'bigint':
      return 'a bigint'
    case 'boolean':
      return `the boolean ${String(value)}`
    case 'symbol':
      return 'a symbol'
    case 'function':
      return 'a function'
    case 'object':
      try {
        if (Array.isArray(value)) return `an array of length ${value.length}`
        const proto: unknown = Object.getPrototypeOf(value)
        if (proto === Object.prototype || proto === null) return 'an object'
        const ctor = (proto as { constructor?: { name?: unknown } }).constructor
        return typeof ctor?.name === 'string' && ctor.name !== ''
          ? `an instance of ${ctor.name}`
          : 'an object'
      } catch {
        return 'an object that cannot be inspected'
      }
    default:
      return typeof value
  }
}
