import { types } from 'node:util'
import type { JsonValue } from '../types.ts'
import { describeThrown } from './describe-thrown.ts'
import { frozenSnapshotFacts, rememberFrozenSnapshot, type SnapshotFacts } from './frozen-snapshots.ts'
import { formatJsonPath, type JsonLocation } from './json-path.ts'
import { numberProblem, primitiveProblem } from './json-primitives.ts'
import { openContainer, plainShape } from './open-container.ts'
import { VisitedContainers } from './visited-containers.ts'
import {
  at,
  Failure,
  failureIn,
  skipPrimitives,
  store,
  type Entry,
  type Frame,
  type Visited,
} from './walk-frame.ts'

/** A detached lossless-JSON copy, or where and why the value is not lossless JSON. */
export type SnapshotResult =
  | { readonly ok: true; readonly value: JsonValue }
  | { readonly ok: false; readonly path: string; readonly reason: string }

/**
 * Written out, a shared subobject appears once per reference: a few shared levels can make the JSON
 * text exponentially large. Sharing may add at most this many values beyond the input's own.
 */
const MAX_SHARED_EXPANSION = 1_000_000

/**
 * Levels copied by recursion (one call per container): shallow values, nearly all of them, need no
 * frame, no stack and no walk loop. A container deeper than this is copied by the frame walk, which
 * needs no call stack at all, so depth stays bounded only by `maxDepth`.
 */
const RECURSION_LIMIT = 64

/** `placePrimitive`'s answer for a non-null object: the caller copies or shares it. */
const CONTAINER = 'container'

const hasOwn = Object.hasOwn
const isEnumerable = Function.prototype.call.bind(Object.prototype.propertyIsEnumerable) as (
  target: object,
  key: number,
) => boolean
const freezeObject = Object.freeze
const isArrayValue = Array.isArray
const { isProxy } = types

/**
 * One depth-first copy of a value. Containers are validated when first met (prototype, keys) and
 * their properties read once each. Plain shallow containers are copied by recursion, anything else
 * (long arrays, objects with many or non-enumerable keys, deep nesting) by a frame walk without
 * recursion; both check the same things in the same order and share what they met, so which one
 * copied a container never shows. With `freeze`, every copied container is frozen as it is
 * finished and the root is remembered, so a later frozen walk embeds it by reference.
 */
export class SnapshotWalker {
  private readonly stack: Frame[] = []
  /** Every container met: an unfinished one met again is a cycle, a finished one is shared. */
  private readonly visited = new VisitedContainers()
  /** Values that shared references add when the copy is written out. */
  private sharedExpansion = 0
  /** Where the walk is (the container being copied), so an unexpected throw can still be reported with a path. */
  private currentLocation: JsonLocation | undefined
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
      const container = this.currentLocation
      const location: JsonLocation =
        container === undefined ? null : { parent: container, key: this.currentKey }
      return fail(location, `could not be inspected (${describeThrown(error)})`)
    } finally {
      this.reset()
    }
  }

  private reset(): void {
    // Only the frame walk uses the stack; setting an empty array's length would still cost a call.
    if (this.stack.length !== 0) this.stack.length = 0
    this.visited.clear()
    this.sharedExpansion = 0
    this.currentLocation = undefined
    this.busy = false
  }

  private walk(root: unknown): JsonValue | Failure {
    if (root === null || typeof root !== 'object') return copyPrimitive(root)
    if (this.freeze) {
      const facts = frozenSnapshotFacts(root)
      if (facts !== undefined && facts.height <= this.maxDepth && facts.expansion <= MAX_SHARED_EXPANSION) {
        return root as JsonValue
      }
    }
    if (isProxy(root)) return new Failure(null, 'is a Proxy')
    // Nothing to remember: a root object is copied without its walk's bookkeeping while its values
    // are primitives (most values a hot path snapshots are such flat objects), and handed to the
    // walk with what it copied at its first container.
    if (!this.remember && !isArrayValue(root) && this.maxDepth >= 1) return this.copyRootObject(root)
    const copied = this.copyContainer(root, null, 1)
    if (copied instanceof Failure) return copied
    if (this.remember) {
      rememberFrozenSnapshot(copied.target, {
        size: copied.size,
        height: copied.height,
        expansion: this.sharedExpansion,
      })
    }
    return copied.target
  }

  /**
   * `copyContainer(root, null, 1).target` for a root that is not an array, in the same order of
   * checks and reads: `plainShape`, then each key read once (a getter runs once) and checked as
   * `placePrimitive` checks it. At the first container value the copy so far becomes the root's
   * entry and `copyKeys` goes on from there, so which path copied a value never shows.
   */
  private copyRootObject(source: object): JsonValue | Failure {
    const shape = plainShape(source, null)
    if (shape === undefined) {
      const copied = this.copyContainer(source, null, 1)
      return copied instanceof Failure ? copied : copied.target
    }
    if (shape instanceof Failure) return shape
    const keys = shape as string[]
    const target: Record<string, JsonValue> = {}
    let size = 1
    this.currentLocation = null
    for (let index = 0; index < keys.length; index += 1) {
      const key = keys[index] as string
      this.currentKey = key
      // Deleted by a getter earlier in this walk: reading it would find an inherited value instead.
      if (!hasOwn(source, key)) continue
      let raw: unknown
      try {
        raw = (source as Record<string, unknown>)[key] // runs a getter, once
      } catch (error) {
        return new Failure({ parent: null, key }, `has a getter that threw (${describeThrown(error)})`)
      }
      if (typeof raw === 'object' && raw !== null) {
        const entry: Entry = { source, done: false, target, size, height: 1, location: null, level: 1 }
        this.visited.add(entry)
        const failure = this.placeShallow(entry, false, key, raw) ?? this.copyKeys(entry, keys, index + 1)
        if (failure !== undefined) return failure
        entry.done = true
        return this.freeze ? freezeObject(target) : target
      }
      const placed = placeRootPrimitive(target, key, raw)
      if (placed instanceof Failure) return placed
      size += placed
    }
    return this.freeze ? freezeObject(target) : target
  }

  /**
   * Copies a container met at `location` (nesting `level`): key by key, by recursion, when it is
   * plain and shallow (`plainShape`); by the frame walk otherwise. Proxies and containers met before
   * were handled by the caller.
   */
  private copyContainer(source: object, location: JsonLocation, level: number): Entry | Failure {
    if (level > this.maxDepth) {
      return new Failure(location, `is nested deeper than maxDepth (${this.maxDepth})`)
    }
    const shape = level > RECURSION_LIMIT ? undefined : plainShape(source, location)
    if (shape === undefined) return this.walkFrames(source, location, level)
    if (shape instanceof Failure) return shape
    const isArray = typeof shape === 'number'
    const entry: Entry = {
      source,
      done: false,
      // sized once: the elements are stored in order, and a failure discards the copy
      target: isArray ? new Array<JsonValue>(shape) : {},
      size: 1,
      height: 1,
      location,
      level,
    }
    this.visited.add(entry)
    const failure = isArray ? this.copyElements(entry, shape) : this.copyKeys(entry, shape)
    if (failure !== undefined) return failure
    entry.done = true
    if (this.freeze) freezeObject(entry.target)
    return entry
  }

  /** A short plain array's elements, read once each (a getter runs once), as `copyElement` does. */
  private copyElements(entry: Entry, count: number): Failure | undefined {
    const source = entry.source as unknown[]
    this.currentLocation = entry.location
    for (let index = 0; index < count; index += 1) {
      this.currentKey = index
      if (!isEnumerable(source, index)) {
        // The key check found every index; a getter earlier in this walk may have changed that.
        const reason = hasOwn(source, index) ? 'is a non-enumerable property' : 'is a hole in a sparse array'
        return new Failure(at(entry, index), reason)
      }
      let raw: unknown
      try {
        raw = source[index] // runs a getter, once
      } catch (error) {
        return new Failure(at(entry, index), `has a getter that threw (${describeThrown(error)})`)
      }
      const failure = this.placeShallow(entry, true, index, raw)
      if (failure !== undefined) return failure
      this.currentLocation = entry.location
    }
    return undefined
  }

  /** A plain object's properties (all enumerable when it was opened) from `start`, read once each, as `copyKey` does. */
  private copyKeys(entry: Entry, keys: readonly string[], start = 0): Failure | undefined {
    const source = entry.source as Record<string, unknown>
    this.currentLocation = entry.location
    for (let index = start; index < keys.length; index += 1) {
      const key = keys[index] as string
      this.currentKey = key
      // Deleted by a getter earlier in this walk: reading it would find an inherited value instead.
      if (!hasOwn(source, key)) continue
      let raw: unknown
      try {
        raw = source[key] // runs a getter, once
      } catch (error) {
        return new Failure(at(entry, key), `has a getter that threw (${describeThrown(error)})`)
      }
      const failure = this.placeShallow(entry, false, key, raw)
      if (failure !== undefined) return failure
      this.currentLocation = entry.location
    }
    return undefined
  }

  /** `place` for the recursive copy: a container is copied before the next property is read. */
  private placeShallow(
    entry: Entry,
    isArray: boolean,
    key: string | number,
    raw: unknown,
  ): Failure | undefined {
    const placed = placePrimitive(entry, isArray, key, raw)
    if (placed !== CONTAINER) return placed
    const source = raw as object
    const met = this.meet(entry, key, source)
    if (met !== undefined) return met === CONTAINER ? undefined : met
    const child = this.copyContainer(source, at(entry, key), entry.level + 1)
    if (child instanceof Failure) return child
    store(entry, key, child.target)
    entry.size += child.size
    if (child.height >= entry.height) entry.height = child.height + 1
    return undefined
  }

  /** The frame walk of one container and everything in it; the stack is empty before and after. */
  private walkFrames(source: object, location: JsonLocation, level: number): Entry | Failure {
    const opened = this.open(source, location, level)
    if (opened instanceof Failure) return opened
    const failure = this.drain()
    return failure ?? opened
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
      this.currentLocation = frame.location
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
    const placed = placePrimitive(frame, frame.isArray, key, raw)
    return placed === CONTAINER ? this.placeContainer(frame, key, raw as object) : placed
  }

  private placeContainer(frame: Frame, key: string | number, source: object): Failure | undefined {
    const met = this.meet(frame, key, source)
    if (met !== undefined) return met === CONTAINER ? undefined : met
    const opened = this.open(source, at(frame, key), frame.level + 1)
    if (opened instanceof Failure) return opened
    store(frame, key, opened.target)
    return undefined
  }

  /**
   * A container met at `key` of `entry` that needs no copy of its own: one met before (a shared
   * subobject, stored again; or a cycle, reported), a frozen snapshot taken as it is, or a proxy
   * (reported). `CONTAINER` when it was stored, `undefined` when it must be copied.
   */
  private meet(entry: Entry, key: string | number, source: object): Failure | typeof CONTAINER | undefined {
    const visited = this.visited.get(source)
    if (visited !== undefined) {
      if (!visited.done) {
        const ancestor = visited as Entry
        return new Failure(at(entry, key), `is a cycle (refers back to ${formatJsonPath(ancestor.location)})`)
      }
      const failure = this.share(entry, key, visited)
      if (failure !== undefined) return failure
      store(entry, key, visited.target)
      return CONTAINER
    }
    if (this.freeze) {
      const facts = frozenSnapshotFacts(source)
      if (facts !== undefined && this.embed(entry, source, facts)) {
        store(entry, key, source as JsonValue)
        return CONTAINER
      }
    }
    // Checked before anything else touches the object: every other operation could run a trap.
    if (isProxy(source)) return new Failure(at(entry, key), 'is a Proxy')
    return undefined
  }

  /** Accounts for a shared subobject appearing again under `frame`, which keeps depth and size bounded. */
  private share(frame: Entry, key: string | number, done: Visited): Failure | undefined {
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
  private embed(frame: Entry, value: object, facts: SnapshotFacts): boolean {
    if (frame.level + facts.height > this.maxDepth) return false
    if (this.sharedExpansion + facts.expansion > MAX_SHARED_EXPANSION) return false
    this.sharedExpansion += facts.expansion
    frame.size += facts.size
    if (facts.height >= frame.height) frame.height = facts.height + 1
    // Met again in this walk, it is shared like any copied container.
    this.visited.add({
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
    const frame = openContainer(source, location, level, this.maxDepth)
    if (frame instanceof Failure) return frame
    this.stack.push(frame)
    this.visited.add(frame)
    return frame
  }
}

/**
 * Stores a primitive `raw` at `key` of `entry`'s copy, or reports why it cannot be copied; drops an
 * `undefined` object property (as JSON.stringify does). `CONTAINER` for a non-null object.
 */
function placePrimitive(
  entry: Entry,
  isArray: boolean,
  key: string | number,
  raw: unknown,
): Failure | undefined | typeof CONTAINER {
  switch (typeof raw) {
    case 'string':
    case 'boolean':
      store(entry, key, raw)
      entry.size += 1
      return undefined
    case 'number':
      if (raw - raw !== 0) return new Failure(at(entry, key), numberProblem(raw))
      // `=== 0` also turns -0 into 0.
      store(entry, key, raw === 0 ? 0 : raw)
      entry.size += 1
      return undefined
    case 'undefined':
      if (isArray) return new Failure(at(entry, key), 'is undefined inside an array')
      return undefined // dropped, as JSON.stringify drops it
    case 'object':
      if (raw === null) {
        store(entry, key, null)
        entry.size += 1
        return undefined
      }
      return CONTAINER
    default:
      return new Failure(at(entry, key), primitiveProblem(raw) ?? `is of unsupported type ${typeof raw}`)
  }
}

/**
 * `placePrimitive` for a key of a root object copied without its entry (`copyRootObject`): stores a
 * primitive `raw` in `target`; how many values it adds (0 for a dropped `undefined`), or why it
 * cannot be copied. `raw` is never a non-null object.
 */
function placeRootPrimitive(target: Record<string, JsonValue>, key: string, raw: unknown): number | Failure {
  switch (typeof raw) {
    case 'string':
    case 'boolean':
      storeKey(target, key, raw)
      return 1
    case 'number':
      if (raw - raw !== 0) return new Failure({ parent: null, key }, numberProblem(raw))
      // `=== 0` also turns -0 into 0.
      storeKey(target, key, raw === 0 ? 0 : raw)
      return 1
    case 'undefined':
      return 0 // dropped, as JSON.stringify drops it
    case 'object':
      storeKey(target, key, null)
      return 1
    default:
      return new Failure(
        { parent: null, key },
        primitiveProblem(raw) ?? `is of unsupported type ${typeof raw}`,
      )
  }
}

/** `store` for an object's copy. */
function storeKey(target: Record<string, JsonValue>, key: string, value: JsonValue): void {
  // Assignment to `__proto__` would set the prototype instead of keeping the key as data.
  if (key === '__proto__') {
    Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true })
  } else target[key] = value
}

/** The copy of a value that is not a container (`null` included), or why it is not JSON. */
function copyPrimitive(value: unknown): JsonValue | Failure {
  if (value === null) return null
  if (value === undefined) return new Failure(null, 'is undefined')
  const reason = primitiveProblem(value)
  if (reason !== undefined) return new Failure(null, reason)
  // `=== 0` also turns -0 into 0.
  return value === 0 ? 0 : (value as JsonValue)
}

/** `SnapshotWalker.run` for a value that is not an object: no walker needed. */
export function snapshotPrimitive(value: unknown): SnapshotResult {
  const copy = copyPrimitive(value)
  return copy instanceof Failure ? fail(null, copy.reason) : { ok: true, value: copy }
}

function fail(location: JsonLocation, reason: string): SnapshotResult {
  return { ok: false, path: formatJsonPath(location), reason }
}
