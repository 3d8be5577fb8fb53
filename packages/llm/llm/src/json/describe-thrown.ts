import { types } from 'node:util'
import { describeValue } from '../describe-value.ts'

/** Describes a thrown value without running any of its code (no getters, traps or `toString`). */
export function describeThrown(error: unknown): string {
  if (typeof error === 'object' && error !== null) {
    if (types.isProxy(error)) return 'a Proxy'
    const message = dataValue(error, 'message')
    const name = constructorName(Reflect.getPrototypeOf(error)) ?? 'object'
    if (typeof message === 'string') {
      return `${name}: ${message.length > 200 ? `${message.slice(0, 200)}…` : message}`
    }
    return `an instance of ${name}`
  }
  if (typeof error === 'function') return types.isProxy(error) ? 'a Proxy' : 'a function'
  return describeValue(error)
}

/** The `name` of `proto.constructor`, read through property descriptors only. */
export function constructorName(proto: unknown): string | undefined {
  if (typeof proto !== 'object' || proto === null || types.isProxy(proto)) return undefined
  const ctor = dataValue(proto, 'constructor')
  if (typeof ctor !== 'function' || types.isProxy(ctor)) return undefined
  const name = dataValue(ctor, 'name')
  return typeof name === 'string' && name !== '' ? name : undefined
}

function dataValue(target: object, key: string): unknown {
  const descriptor = Reflect.getOwnPropertyDescriptor(target, key)
  return descriptor !== undefined && 'value' in descriptor ? descriptor.value : undefined
}
