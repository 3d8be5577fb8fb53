import { types } from 'node:util'
import type { JsonValue } from '@deepseek-ai/dsh-llm'
import { nonPlainName, type ShapeProblem } from './container-shape.ts'
import { describeThrown } from './describe-thrown.ts'
import { frozenSnapshotFacts, rememberFrozenSnapshot, type SnapshotFacts } from './frozen-snapshots.ts'
import { formatJsonPath, type JsonLocation } from './json-path.ts'
import { LONG_ARRAY, readLongArray, shortArrayProblem } from './read-array-elements.ts'

/** A detached lossless-JSON copy, or where and why the value is not lossless JSON. */
export type SnapshotResult =
  | { readonly ok: true; readonly value: JsonValue }
  | { readonly ok: false; readonly path: string; readonly reason: string }

/** A container met during the walk: still being copied (`done: false`) or copied. */
interface Visited {
  readonly source: object
  done: boolean
  readonly target: JsonValue[] | Record<string, JsonValue>
  /** Values in it once written out (itself included), and its nesting height. */
  size: number
  height: number
}

interface Frame extends Visited {
  readonly isArray: boolean
  /** Keys to copy (objects); arrays are walked by index. */
  keys: readonly string[] | undefined
  /**
   * Objects: read each key through its descriptor, to report non-enumerable keys in order.
   * Arrays: the elements were read in bulk and wait in the target to be replaced by their copies.
   */
  readonly precise: boolean
  readonly count: number
  /** Reported once the `count` properties before it are copied. */
  readonly failure: ShapeProblem | undefined
  readonly location: JsonLocation
  readonly level: number
  index: number
}

/**
 * Written out, a shared subobject appears once per reference: a few shared levels can make the JSON
 * text exponentially large. Sharing may add at most this many values beyond the input's own.
 */
const MAX_SHARED_EXPANSION = 1_000_000

/** Objects with more keys are read through descriptors (one lookup per key instead of two). */
const MANY_KEYS = 64

/** Containers looked up by a linear search before a map takes over. */
const SHORT_LIST = 16

const objectKeys = Object.keys
const ownNames = Object.getOwnPropertyNames
const ownSymbols = Object.getOwnPropertySymbols
const hasOwn = Object.hasOwn
const isEnumerable = Function.prototype.call.bind(Object.prototype.propertyIsEnumerable) as (
  target: object,
  key: number,
) => boolean
const freezeObject = Object.freeze
const getPrototypeOf = Reflect.getPrototypeOf
const isArray = Array.isArray
const { isProxy, isBoxedPrimitive } = types
const OBJECT_PROTOTYPE = Object.prototype
const ARRAY_PROTOTYPE = Array.prototype

class Failure {
  constructor(
    readonly location: JsonLocation,
    readonly reason: string,
  ) {}
}

/**
 * One depth-first copy of a value, without recursion. Containers are validated when first met
 * (prototype, keys) and their properties read once each. With `freeze`, every copied container is
 * frozen as it is finished and the root is remembered, so a later frozen walk embeds it by reference.
 */
export class SnapshotWalker {
  private readonly stack: Frame[] = []
  /**
   * Every container met: an unfinished one met again is a cycle, a finished one is shared. Kept in a
   * list while short (the usual case: searching a few entries beats hashing) and in a map beyond.
   */
  private readonly visited: Visited[] = []
  private visitedMap: Map<object, Visited> | undefined
  /** Values that shared references add when the copy is written out. */
  private sharedExpansion = 0
  /** Where the walk is, so an unexpected throw can still be reported with a path. */
  private currentFrame: Frame | undefined
  private currentKey: string | number = 0
  /** True while `run` is on the stack: a getter may start another snapshot, which needs its own walker. */
  private busy = false

  /**
   * @param freeze freeze every copied container as it is finished, and embed frozen snapshots met
   *   inside the value by reference
   * @param remember remember the frozen root so later walks embed it (`freeze` only)
   */
  constructor(
    private readonly maxDepth: number,
    private readonly freeze: boolean,
    private readonly remember: boolean = freeze,
  ) {}

  /** Whether `run` may be called now; a walker is reusable once its previous run returned. */
  get idle(): boolean {
    return !this.busy
  }

  run(value: unknown): SnapshotResult {
    this.busy = true
    try {
      const result = this.walk(value)
      if (result instanceof Failure) return fail(result.location, result.reason)
      return { ok: true, value: result }
    } catch (error) {
      const frame = this.currentFrame
      const location: JsonLocation =
        frame === undefined ? null : { parent: frame.location, key: this.currentKey }
      return fail(location, `could not be inspected (${describeThrown(error)})`)
    } finally {
      this.reset()
    }
  }

  private reset(): void {
    this.stack.length = 0
    this.visited.length = 0
    this.visitedMap = undefined
    this.sharedExpansion = 0
    this.currentFrame = undefined
    this.busy = false
  }

  private lookUp(source: object): Visited | undefined {
    if (this.visitedMap !== undefined) return this.visitedMap.get(source)
    const visited = this.visited
    for (let i = 0; i < visited.length; i += 1) {
      const entry = visited[i] as Visited
      if (entry.source === source) return entry
    }
    return undefined
  }

  private addVisited(entry: Visited): void {
    if (this.visitedMap !== undefined) {
      this.visitedMap.set(entry.source, entry)
      return
    }
    const visited = this.visited
    visited.push(entry)
    if (visited.length > SHORT_LIST) {
      this.visitedMap = new Map(visited.map((item) => [item.source, item]))
      visited.length = 0
    }
  }

  private walk(root: unknown): JsonValue | Failure {
    if (root === null) return null
    if (typeof root !== 'object') {
      if (root === undefined) return new Failure(null, 'is undefined')
      const reason = primitiveProblem(root)
      if (reason !== undefined) return new Failure(null, reason)
      return root === 0 ? 0 : (root as JsonValue)
    }
    if (this.freeze) {
      const facts = frozenSnapshotFacts(root)
      if (facts !== undefined && facts.height <= this.maxDepth && facts.expansion <= MAX_SHARED_EXPANSION) {
        return root as JsonValue
      }
    }
    if (isProxy(root)) return new Failure(null, 'is a Proxy')
    const opened = this.open(root, null, 1)
    if (opened instanceof Failure) return opened
    const failure = this.drain()
    if (failure !== undefined) return failure
    if (this.remember) {
      rememberFrozenSnapshot(opened.target, {
        size: opened.size,
        height: opened.height,
        expansion: this.sharedExpansion,
      })
    }
    return opened.target
  }

  /** Copies every container on the stack, depth first; the first failure ends the walk. */
  private drain(): Failure | undefined {
    const stack = this.stack
    while (stack.length > 0) {
      const frame = stack[stack.length - 1] as Frame
      if (frame.index >= frame.count) {
        if (frame.failure !== undefined) return failureIn(frame, frame.failure)
        stack.pop()
        this.finish(frame, stack[stack.length - 1])
        continue
      }
      if (frame.precise && frame.isArray && skipPrimitives(frame)) continue
      const index = frame.index
      frame.index = index + 1
      this.currentFrame = frame
      const failure = frame.isArray
        ? this.copyElement(frame, index)
        : this.copyKey(frame, (frame.keys as readonly string[])[index] as string)
      if (failure !== undefined) return failure
    }
    return undefined
  }

  private finish(frame: Frame, parent: Frame | undefined): void {
    frame.done = true
    frame.keys = undefined
    if (this.freeze) freezeObject(frame.target)
    if (parent !== undefined) {
      parent.size += frame.size
      if (frame.height >= parent.height) parent.height = frame.height + 1
    }
  }

  private copyElement(frame: Frame, index: number): Failure | undefined {
    this.currentKey = index
    if (frame.precise) return this.place(frame, index, (frame.target as unknown[])[index])
    const source = frame.source as unknown[]
    if (!isEnumerable(source, index)) {
      // The key check found every index; a getter earlier in this walk may have changed that.
      const reason = hasOwn(source, index) ? 'is a non-enumerable property' : 'is a hole in a sparse array'
      return new Failure(at(frame, index), reason)
    }
    let raw: unknown
    try {
      raw = source[index] // runs a getter, once
    } catch (error) {
      return new Failure(at(frame, index), `has a getter that threw (${describeThrown(error)})`)
    }
    return this.place(frame, index, raw)
  }

  private copyKey(frame: Frame, key: string): Failure | undefined {
    this.currentKey = key
    const source = frame.source as Record<string, unknown>
    if (frame.precise) {
      const descriptor = Reflect.getOwnPropertyDescriptor(source, key)
      // A getter earlier in this walk may have deleted the property: copy what exists now.
      if (descriptor === undefined) return undefined
      if (descriptor.enumerable !== true) return new Failure(at(frame, key), 'is a non-enumerable property')
      if ('value' in descriptor) return this.place(frame, key, descriptor.value)
      if (descriptor.get === undefined) return this.place(frame, key, undefined)
      let got: unknown
      try {
        got = Reflect.apply(descriptor.get, source, [])
      } catch (error) {
        return new Failure(at(frame, key), `has a getter that threw (${describeThrown(error)})`)
      }
      return this.place(frame, key, got)
    }
    // Deleted by a getter earlier in this walk: reading it would find an inherited value instead.
    if (!hasOwn(source, key)) return undefined
    let raw: unknown
    try {
      raw = source[key] // runs a getter, once
    } catch (error) {
      return new Failure(at(frame, key), `has a getter that threw (${describeThrown(error)})`)
    }
    return this.place(frame, key, raw)
  }

  /** Stores the copy of `raw` at `key` of `frame`'s target, or reports why it cannot be copied. */
  private place(frame: Frame, key: string | number, raw: unknown): Failure | undefined {
    switch (typeof raw) {
      case 'string':
      case 'boolean':
        store(frame, key, raw)
        frame.size += 1
        return undefined
      case 'number':
        if (raw - raw !== 0) return new Failure(at(frame, key), numberProblem(raw))
        // `=== 0` also turns -0 into 0.
        store(frame, key, raw === 0 ? 0 : raw)
        frame.size += 1
        return undefined
      case 'undefined':
        if (frame.isArray) return new Failure(at(frame, key), 'is undefined inside an array')
        return undefined // dropped, as JSON.stringify drops it
      case 'object':
        if (raw === null) {
          store(frame, key, null)
          frame.size += 1
          return undefined
        }
        return this.placeContainer(frame, key, raw)
      default:
        return new Failure(at(frame, key), primitiveProblem(raw) ?? `is of unsupported type ${typeof raw}`)
    }
  }

  private placeContainer(frame: Frame, key: string | number, source: object): Failure | undefined {
    const visited = this.lookUp(source)
    if (visited !== undefined) {
      if (!visited.done) {
        const ancestor = visited as Frame
        return new Failure(at(frame, key), `is a cycle (refers back to ${formatJsonPath(ancestor.location)})`)
      }
      const failure = this.share(frame, key, visited)
      if (failure !== undefined) return failure
      store(frame, key, visited.target)
      return undefined
    }
    if (this.freeze) {
      const facts = frozenSnapshotFacts(source)
      if (facts !== undefined && this.embed(frame, source, facts)) {
        store(frame, key, source as JsonValue)
        return undefined
      }
    }
    // Checked before anything else touches the object: every other operation could run a trap.
    if (isProxy(source)) return new Failure(at(frame, key), 'is a Proxy')
    const opened = this.open(source, at(frame, key), frame.level + 1)
    if (opened instanceof Failure) return opened
    store(frame, key, opened.target)
    return undefined
  }

  /** Accounts for a shared subobject appearing again under `frame`, which keeps depth and size bounded. */
  private share(frame: Frame, key: string | number, done: Visited): Failure | undefined {
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
    if (done.height >= frame.height) frame.height = done.height + 1
    return undefined
  }

  /**
   * Takes a frozen snapshot as it is when it fits this walk's limits; otherwise it is walked like any
   * value, which reports exactly where a limit is crossed.
   */
  private embed(frame: Frame, value: object, facts: SnapshotFacts): boolean {
    if (frame.level + facts.height > this.maxDepth) return false
    if (this.sharedExpansion + facts.expansion > MAX_SHARED_EXPANSION) return false
    this.sharedExpansion += facts.expansion
    frame.size += facts.size
    if (facts.height >= frame.height) frame.height = facts.height + 1
    // Met again in this walk, it is shared like any copied container.
    this.addVisited({
      source: value,
      done: true,
      target: value as Record<string, JsonValue>,
      size: facts.size,
      height: facts.height,
    })
    return true
  }

  /** Validates a container and pushes a frame that will copy its properties. */
  private open(source: object, location: JsonLocation, level: number): Frame | Failure {
    if (level > this.maxDepth) {
      return new Failure(location, `is nested deeper than maxDepth (${this.maxDepth})`)
    }
    const proto = getPrototypeOf(source)
    let frame: Frame
    if (isArray(source)) {
      if (proto !== ARRAY_PROTOTYPE) {
        return new Failure(location, `is ${nonPlainName(source, proto)}, not a plain object or array`)
      }
      const array = source as unknown[]
      if (array.length < LONG_ARRAY) {
        const problem = shortArrayProblem(array)
        if (problem !== undefined) return problemAt(location, problem)
        frame = {
          done: false,
          target: [],
          size: 1,
          height: 1,
          source,
          isArray: true,
          keys: undefined,
          precise: false,
          count: array.length,
          failure: undefined,
          location,
          level,
          index: 0,
        }
      } else {
        const elements = readLongArray(array)
        if ('reason' in elements) return problemAt(location, elements)
        frame = {
          done: false,
          target: elements.values as JsonValue[],
          size: 1,
          height: 1,
          source,
          isArray: true,
          keys: undefined,
          precise: true,
          count: elements.count,
          failure: elements.failure,
          location,
          level,
          index: 0,
        }
      }
    } else {
      if (proto !== OBJECT_PROTOTYPE && proto !== null) {
        return new Failure(location, `is ${nonPlainName(source, proto)}, not a plain object or array`)
      }
      // JSON.stringify would unbox these even with a plain prototype, so the copy could not match.
      if (isBoxedPrimitive(source)) return new Failure(location, 'is a boxed primitive, not a plain object')
      if (ownSymbols(source).length > 0) return new Failure(location, 'has a symbol-keyed property')
      const names = ownNames(source)
      // Few keys: `Object.keys` (cached by the engine per shape) shows whether all are enumerable,
      // and each is then read directly. Many keys, or non-enumerable ones (which JSON would drop,
      // reported in key order among the others): one descriptor per key, one lookup each.
      const keys = names.length <= MANY_KEYS ? objectKeys(source) : undefined
      const precise = keys === undefined || names.length !== keys.length
      frame = {
        done: false,
        target: {},
        size: 1,
        height: 1,
        source,
        isArray: false,
        keys: precise ? names : keys,
        precise,
        count: names.length,
        failure: undefined,
        location,
        level,
        index: 0,
      }
    }
    this.stack.push(frame)
    this.addVisited(frame)
    return frame
  }
}

/**
 * Runs over the bulk-read elements of a long array while they are JSON primitives, in one tight loop
 * (a million numbers would otherwise cost a million calls); -0 becomes 0 in place. True when it
 * moved, so the caller looks at the frame again.
 */
function skipPrimitives(frame: Frame): boolean {
  const values = frame.target as unknown[]
  const start = frame.index
  const count = frame.count
  let index = start
  for (; index < count; index += 1) {
    const value = values[index]
    if (typeof value === 'number') {
      if (value - value !== 0) break // NaN, ±Infinity: reported by `place`
      if (value === 0) values[index] = 0
    } else if (typeof value !== 'string' && typeof value !== 'boolean' && value !== null) break
  }
  frame.size += index - start
  frame.index = index
  return index > start
}

/** The location of `key` inside `frame`; allocated only when a path is needed. */
function at(frame: Frame, key: string | number): JsonLocation {
  return { parent: frame.location, key }
}

function problemAt(location: JsonLocation, problem: ShapeProblem): Failure {
  return new Failure(
    problem.at === undefined ? location : { parent: location, key: problem.at },
    problem.reason,
  )
}

function failureIn(frame: Frame, problem: ShapeProblem): Failure {
  return problemAt(frame.location, problem)
}

function fail(location: JsonLocation, reason: string): SnapshotResult {
  return { ok: false, path: formatJsonPath(location), reason }
}

function store(frame: Frame, key: string | number, value: JsonValue): void {
  const target = frame.target as Record<string | number, JsonValue>
  // Assignment to `__proto__` would set the prototype instead of keeping the key as data.
  if (key === '__proto__') {
    Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true })
  } else target[key] = value
}

function numberProblem(value: number): string {
  if (Number.isNaN(value)) return 'is NaN'
  return value > 0 ? 'is Infinity' : 'is -Infinity'
}

/** Why a non-container value is not JSON, or `undefined` for strings, finite numbers and booleans. */
function primitiveProblem(value: unknown): string | undefined {
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
