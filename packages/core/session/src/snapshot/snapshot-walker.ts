import { types } from 'node:util'
import type { JsonValue } from '@deepseek-ai/dsh-llm'
import { describeThrown } from './describe-thrown.ts'
import { frozenSnapshotFacts, rememberFrozenSnapshot, type SnapshotFacts } from './frozen-snapshots.ts'
import { formatJsonPath, type JsonLocation } from './json-path.ts'
import { numberProblem, primitiveProblem } from './json-primitives.ts'
import { openContainer } from './open-container.ts'
import { VisitedContainers } from './visited-containers.ts'
import { at, Failure, failureIn, skipPrimitives, store, type Frame, type Visited } from './walk-frame.ts'

/** A detached lossless-JSON copy, or where and why the value is not lossless JSON. */
export type SnapshotResult =
  | { readonly ok: true; readonly value: JsonValue }
  | { readonly ok: false; readonly path: string; readonly reason: string }

/**
 * Written out, a shared subobject appears once per reference: a few shared levels can make the JSON
 * text exponentially large. Sharing may add at most this many values beyond the input's own.
 */
const MAX_SHARED_EXPANSION = 1_000_000

const hasOwn = Object.hasOwn
const isEnumerable = Function.prototype.call.bind(Object.prototype.propertyIsEnumerable) as (
  target: object,
  key: number,
) => boolean
const freezeObject = Object.freeze
const { isProxy } = types

/**
 * One depth-first copy of a value, without recursion. Containers are validated when first met
 * (prototype, keys) and their properties read once each. With `freeze`, every copied container is
 * frozen as it is finished and the root is remembered, so a later frozen walk embeds it by reference.
 */
export class SnapshotWalker {
  private readonly stack: Frame[] = []
  /** Every container met: an unfinished one met again is a cycle, a finished one is shared. */
  private readonly visited = new VisitedContainers()
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
    this.visited.clear()
    this.sharedExpansion = 0
    this.currentFrame = undefined
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
    const visited = this.visited.get(source)
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
