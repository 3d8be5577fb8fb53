// The snapshot walker as it was before the bulk-read rewrite: one property descriptor per key and
// `Reflect.ownKeys` on every container. Kept as a test oracle: the fast walker must agree with it on
// every value (see snapshot-oracle.test.ts), apart from the documented differences listed there.
import { types } from 'node:util'
import { describeValue, type JsonValue } from '@deepseek-ai/dsh-llm'
import { formatJsonPath, type JsonLocation } from '../../../../llm/llm/src/json/json-path.ts'

export type ReferenceResult =
  | { readonly ok: true; readonly value: JsonValue }
  | { readonly ok: false; readonly path: string; readonly reason: string }

export function referenceSnapshot(value: unknown, maxDepth = 1000): ReferenceResult {
  return new Walker(maxDepth).run(value)
}

type Inspected =
  | { readonly kind: 'value'; readonly value: JsonValue }
  | { readonly kind: 'undefined' }
  | { readonly kind: 'object'; readonly source: object }
  | { readonly kind: 'fail'; readonly reason: string }

interface Frame {
  readonly source: object
  readonly target: Record<string, JsonValue> | JsonValue[]
  /** Own string keys to copy; `undefined` for arrays, which are walked by index. */
  readonly keys: readonly string[] | undefined
  readonly count: number
  readonly location: JsonLocation
  readonly level: number
  index: number
  /** Values in this container once written out (itself included), and its nesting height. */
  size: number
  height: number
}

interface Copied {
  readonly value: JsonValue
  readonly size: number
  readonly height: number
}

/**
 * Written out, a shared subobject appears once per reference: a few shared levels can make the JSON
 * text exponentially large. Sharing may add at most this many values beyond the input's own.
 */
const MAX_SHARED_EXPANSION = 1_000_000

class Failure {
  constructor(
    readonly location: JsonLocation,
    readonly reason: string,
  ) {}
}

const UNDEFINED: Inspected = { kind: 'undefined' }

class Walker {
  private readonly stack: Frame[] = []
  /** Containers on the current path: meeting one again is a cycle. */
  private readonly ancestors = new Map<object, Frame>()
  /** Containers already copied: shared, non-cyclic references reuse the copy. */
  private readonly copied = new Map<object, Copied>()
  /** Values that shared references add when the copy is written out. */
  private sharedExpansion = 0
  /** Where the walk is, so an unexpected throw can still be reported with a path. */
  private currentFrame: Frame | undefined
  private currentKey: string | number = 0

  constructor(private readonly maxDepth: number) {}

  run(value: unknown): ReferenceResult {
    try {
      const result = this.walk(value)
      if (result instanceof Failure) return fail(result.location, result.reason)
      return { ok: true, value: result }
    } catch (error) {
      const frame = this.currentFrame
      const location: JsonLocation =
        frame === undefined ? null : { parent: frame.location, key: this.currentKey }
      return fail(location, `could not be inspected (${describeThrown(error)})`)
    }
  }

  private walk(root: unknown): JsonValue | Failure {
    const first = inspect(root)
    switch (first.kind) {
      case 'value':
        return first.value
      case 'undefined':
        return new Failure(null, 'is undefined')
      case 'fail':
        return new Failure(null, first.reason)
      case 'object': {
        const opened = this.open(first.source, null, 1)
        if (opened instanceof Failure) return opened
        return this.drain() ?? opened.target
      }
      default:
        return assertNever(first)
    }
  }

  /** Copies every container on the stack, depth first; the first failure ends the walk. */
  private drain(): Failure | undefined {
    const stack = this.stack
    while (stack.length > 0) {
      const frame = stack[stack.length - 1] as Frame
      if (frame.index >= frame.count) {
        stack.pop()
        this.ancestors.delete(frame.source)
        this.copied.set(frame.source, { value: frame.target, size: frame.size, height: frame.height })
        const parent = stack[stack.length - 1]
        if (parent !== undefined) {
          parent.size += frame.size
          parent.height = Math.max(parent.height, frame.height + 1)
        }
        continue
      }
      const key = frame.keys === undefined ? frame.index : (frame.keys[frame.index] as string)
      frame.index += 1
      this.currentFrame = frame
      this.currentKey = key
      const failure = this.copyProperty(frame, key)
      if (failure !== undefined) return failure
    }
    return undefined
  }

  private copyProperty(frame: Frame, key: string | number): Failure | undefined {
    const descriptor = Reflect.getOwnPropertyDescriptor(frame.source, key)
    // A getter earlier in this walk may have deleted the property: copy what exists now.
    if (descriptor === undefined) {
      return Array.isArray(frame.target)
        ? new Failure(at(frame, key), 'is a hole in a sparse array')
        : undefined
    }
    if (descriptor.enumerable !== true) return new Failure(at(frame, key), 'is a non-enumerable property')
    let raw: unknown
    if ('value' in descriptor) raw = descriptor.value
    else if (descriptor.get !== undefined) {
      try {
        raw = Reflect.apply(descriptor.get, frame.source, [])
      } catch (error) {
        return new Failure(at(frame, key), `has a getter that threw (${describeThrown(error)})`)
      }
    }
    if (
      typeof raw === 'string' ||
      typeof raw === 'boolean' ||
      (typeof raw === 'number' && Number.isFinite(raw))
    ) {
      // The common case, kept free of allocations; `=== 0` also turns -0 into 0.
      store(frame.target, key, raw === 0 ? 0 : raw)
      frame.size += 1
      return undefined
    }
    const inspected = inspect(raw)
    let value: JsonValue
    switch (inspected.kind) {
      case 'value':
        value = inspected.value
        break
      case 'undefined':
        if (Array.isArray(frame.target)) return new Failure(at(frame, key), 'is undefined inside an array')
        return undefined
      case 'fail':
        return new Failure(at(frame, key), inspected.reason)
      case 'object': {
        const { source } = inspected
        const ancestor = this.ancestors.get(source)
        if (ancestor !== undefined) {
          return new Failure(
            at(frame, key),
            `is a cycle (refers back to ${formatJsonPath(ancestor.location)})`,
          )
        }
        const done = this.copied.get(source)
        if (done !== undefined) {
          const failure = this.reuse(frame, key, done)
          if (failure !== undefined) return failure
          value = done.value
        } else {
          const opened = this.open(source, at(frame, key), frame.level + 1)
          if (opened instanceof Failure) return opened
          value = opened.target
        }
        break
      }
      default:
        return assertNever(inspected)
    }
    if (inspected.kind === 'value') frame.size += 1
    store(frame.target, key, value)
    return undefined
  }

  /** Accounts for a shared subobject appearing again under `frame`, which keeps depth and size bounded. */
  private reuse(frame: Frame, key: string | number, done: Copied): Failure | undefined {
    if (frame.level + done.height > this.maxDepth) {
      return new Failure(
        at(frame, key),
        `is a shared subobject that reaches deeper than maxDepth (${this.maxDepth})`,
      )
    }
    this.sharedExpansion += done.size
    if (this.sharedExpansion > MAX_SHARED_EXPANSION) {
      return new Failure(
        at(frame, key),
        `is a shared subobject referenced so often that the JSON text would hold over ${MAX_SHARED_EXPANSION} extra values`,
      )
    }
    frame.size += done.size
    frame.height = Math.max(frame.height, done.height + 1)
    return undefined
  }

  /** Validates a container and pushes a frame that will copy its properties. */
  private open(source: object, location: JsonLocation, level: number): Frame | Failure {
    if (level > this.maxDepth) {
      return new Failure(location, `is nested deeper than maxDepth (${this.maxDepth})`)
    }
    const shape = containerShape(source)
    if ('reason' in shape) {
      return new Failure(
        shape.at === undefined ? location : { parent: location, key: shape.at },
        shape.reason,
      )
    }
    const frame: Frame = {
      source,
      target: shape.keys === undefined ? [] : {},
      keys: shape.keys,
      count: shape.count,
      location,
      level,
      index: 0,
      size: 1,
      height: 1,
    }
    this.stack.push(frame)
    this.ancestors.set(source, frame)
    return frame
  }
}

/** The location of `key` inside `frame`; allocated only when a path is needed. */
function at(frame: Frame, key: string | number): JsonLocation {
  return { parent: frame.location, key }
}

function fail(location: JsonLocation, reason: string): ReferenceResult {
  return { ok: false, path: formatJsonPath(location), reason }
}

function store(
  target: Record<string, JsonValue> | JsonValue[],
  key: string | number,
  value: JsonValue,
): void {
  if (Array.isArray(target)) target.push(value)
  // Assignment to `__proto__` would set the prototype instead of keeping the key as data.
  else if (key === '__proto__') {
    Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true })
  } else target[key] = value
}

function inspect(value: unknown): Inspected {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return { kind: 'value', value }
    case 'number':
      if (Number.isNaN(value)) return { kind: 'fail', reason: 'is NaN' }
      if (!Number.isFinite(value)) return { kind: 'fail', reason: value > 0 ? 'is Infinity' : 'is -Infinity' }
      return { kind: 'value', value: value === 0 ? 0 : value }
    case 'undefined':
      return UNDEFINED
    case 'bigint':
      return { kind: 'fail', reason: 'is a BigInt' }
    case 'symbol':
      return { kind: 'fail', reason: 'is a symbol' }
    case 'function':
      return { kind: 'fail', reason: types.isProxy(value) ? 'is a Proxy' : 'is a function' }
    case 'object':
      if (value === null) return { kind: 'value', value: null }
      // Checked before anything else touches the object: every other operation could run a trap.
      if (types.isProxy(value)) return { kind: 'fail', reason: 'is a Proxy' }
      return { kind: 'object', source: value }
    default:
      return { kind: 'fail', reason: `is of unsupported type ${typeof value}` }
  }
}

/** Why a container is refused; `at` names the offending property when there is one. */
type ShapeProblem = { readonly reason: string; readonly at?: string | number }
type Shape = { readonly keys: readonly string[] | undefined; readonly count: number }

/**
 * The keys to copy of a non-proxy container, or why it is not a plain object/array. Only
 * trap-free reflection is used here, so no user code runs.
 */
function containerShape(source: object): Shape | ShapeProblem {
  const proto: unknown = Reflect.getPrototypeOf(source)
  const isArray = Array.isArray(source)
  if (isArray ? proto !== Array.prototype : proto !== Object.prototype && proto !== null) {
    return { reason: `is ${nonPlainName(source, proto)}, not a plain object or array` }
  }
  const exotic = exoticKind(source)
  if (exotic !== undefined) return { reason: `is ${exotic}, not a plain object or array` }
  const ownKeys = Reflect.ownKeys(source)
  if (isArray) return arrayShape(source as unknown[], ownKeys)
  const keys: string[] = []
  for (const key of ownKeys) {
    if (typeof key !== 'string') return { reason: 'has a symbol-keyed property' }
    keys.push(key)
  }
  return { keys, count: keys.length }
}

function arrayShape(source: readonly unknown[], ownKeys: readonly (string | symbol)[]): Shape | ShapeProblem {
  const length = source.length
  // Own keys list indices first, ascending: the first index that is not its position is a hole.
  let expected = 0
  for (const key of ownKeys) {
    if (typeof key !== 'string') return { reason: 'has a symbol-keyed property' }
    if (key === 'length') continue
    if (key === String(expected) && expected < length) {
      expected += 1
      continue
    }
    if (isArrayIndex(key, length)) break
    return { at: key, reason: 'is a non-index array property, which JSON would drop' }
  }
  if (expected < length) return { at: expected, reason: 'is a hole in a sparse array' }
  return { keys: undefined, count: length }
}

function isArrayIndex(key: string, length: number): boolean {
  const n = Number(key)
  return Number.isInteger(n) && n >= 0 && n < length && String(n) === key
}

function exoticKind(source: object): string | undefined {
  if (types.isBoxedPrimitive(source)) return 'a boxed primitive'
  if (types.isDate(source)) return 'a Date'
  if (types.isRegExp(source)) return 'a RegExp'
  if (types.isMap(source) || types.isSet(source) || types.isWeakMap(source) || types.isWeakSet(source)) {
    return 'a Map/Set collection'
  }
  if (types.isArrayBufferView(source) || types.isAnyArrayBuffer(source)) return 'binary data'
  if (types.isNativeError(source)) return 'an Error'
  if (types.isPromise(source)) return 'a Promise'
  if (types.isModuleNamespaceObject(source)) return 'a module namespace object'
  if (types.isGeneratorObject(source)) return 'a generator'
  return undefined
}

/** "an instance of Date", read through property descriptors only so that no getter or trap runs. */
function nonPlainName(source: object, proto: unknown): string {
  const name = constructorName(proto)
  if (Array.isArray(source))
    return `an array with a non-standard prototype${name === undefined ? '' : ` (${name})`}`
  return name === undefined ? 'an object with a non-plain prototype' : `an instance of ${name}`
}

function constructorName(proto: unknown): string | undefined {
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

/** Describes a thrown value without running any of its code (no getters, traps or `toString`). */
function describeThrown(error: unknown): string {
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

function assertNever(value: never): never {
  throw new Error(`unreachable: ${describeValue(value)}`)
}
