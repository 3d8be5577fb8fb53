import { types } from 'node:util'
import type { ToolResultContent } from '@deepseek-ai/dsh-llm'

/**
 * A lower bound of the UTF-8 size of `value`'s JSON text, counted without running any of its code
 * (property descriptors only: no getter, no proxy trap) and given up as soon as it passes `limit`,
 * so a 100,000,000-element array costs no more to refuse than a value of `limit` bytes. Returns
 * the bound reached (which exceeds `limit` when the value is too large).
 */
export function jsonSizeFloor(value: unknown, limit: number): number {
  // a string or a number at the root: no walk, nothing to remember
  if (typeof value !== 'object' || value === null) return primitiveFloor(value)
  try {
    return walkFloor(value, limit)
  } finally {
    forget()
  }
}

function primitiveFloor(value: unknown): number {
  switch (typeof value) {
    case 'string':
      return value.length + 2
    case 'number':
      return numberFloor(value)
    default:
      return value === null ? 4 : 1
  }
}

/**
 * The containers one walk has met, so a shared or cyclic one is counted once. Kept between walks
 * (a walk runs no code of the value's: descriptors only, so no walk starts inside another) and
 * emptied after each: a small value (the common result) is checked against a short list, and a
 * set is made only for a value with more than `FEW` containers, instead of a set per call. Slots
 * are cleared, not the arrays truncated: truncating frees their storage, which the next walk
 * would allocate again.
 */
const FEW = 16
const met: (object | undefined)[] = Array.from({ length: FEW }, () => undefined)
let metCount = 0
let metSet: Set<object> | undefined
/** The values still to count (`stack[0 .. top)`); kept between walks like `met`. */
const stack: unknown[] = []
let top = 0
/** A stack that grew past this many slots (a large value) is let go after its walk. */
const KEEP = 1024

/** Whether `container` was met before in this walk; remembers it if not. */
function meet(container: object): boolean {
  if (metSet !== undefined) {
    if (metSet.has(container)) return true
    metSet.add(container)
    return false
  }
  for (let i = 0; i < metCount; i++) if (met[i] === container) return true
  if (metCount < FEW) met[metCount++] = container
  else {
    metSet = new Set(met as object[])
    metSet.add(container)
  }
  return false
}

/** Empties what the walk remembered and left (nothing of a value outlives its walk). */
function forget(): void {
  for (let i = 0; i < metCount; i++) met[i] = undefined
  metCount = 0
  metSet = undefined
  if (stack.length > KEEP) stack.length = 0
  else for (let i = 0; i < top; i++) stack[i] = undefined
  top = 0
}

function walkFloor(value: object, limit: number): number {
  let floor = 0
  stack[top++] = value
  while (top > 0 && floor <= limit) {
    const current = stack[--top]
    stack[top] = undefined
    if (typeof current !== 'object' || current === null) {
      floor += primitiveFloor(current)
      continue
    }
    if (types.isProxy(current) || meet(current)) continue
    if (Array.isArray(current)) {
      const length = current.length
      floor += 1 + Math.max(1, length)
      for (let i = 0; i < length && floor <= limit; i++) {
        const descriptor = Object.getOwnPropertyDescriptor(current, i)
        if (descriptor !== undefined && 'value' in descriptor) stack[top++] = descriptor.value
      }
      continue
    }
    const keys = Object.keys(current)
    floor += 1 + Math.max(1, keys.length)
    for (let i = 0; i < keys.length && floor <= limit; i++) {
      const key = keys[i]!
      floor += key.length + 3
      if (isDataProperty(current, key)) stack[top++] = (current as Record<string, unknown>)[key]
    }
  }
  return floor
}

// Annex B's accessor lookups, taken once: unlike `Object.getOwnPropertyDescriptor` they make no
// descriptor object (one per key of every result was the walk's main allocation, issue 26).
type AccessorLookup = (this: object, key: string) => unknown
const annexB = Object.prototype as unknown as {
  readonly __lookupGetter__: AccessorLookup
  readonly __lookupSetter__: AccessorLookup
}
const lookupGetter = annexB.__lookupGetter__
const lookupSetter = annexB.__lookupSetter__

/**
 * Whether own enumerable key `key` of `target` (not a proxy: ruled out before) is a data property,
 * so reading it runs no code. The lookups stop at the own property (it exists: `Object.keys` listed
 * it and no code has run since): a getter is an accessor; so is a setter alone, whose read would
 * be `undefined` without running it, but which the walk skips like any accessor.
 */
function isDataProperty(target: object, key: string): boolean {
  if (lookupGetter.call(target, key) !== undefined) return false
  return (
    (target as Record<string, unknown>)[key] !== undefined || lookupSetter.call(target, key) === undefined
  )
}

/** Characters of a number's JSON text, at least: exact for integers below 1e15, else a floor. */
function numberFloor(n: number): number {
  const abs = Math.abs(n)
  if (!Number.isInteger(n) || abs >= 1e15) return n < 0 ? 2 : 1
  let digits = 1
  for (let bound = 10; abs >= bound; bound *= 10) digits++
  return n < 0 ? digits + 1 : digits
}

/** The UTF-8 size of `text` when it exceeds `limit`, else undefined (exact only when needed). */
export function textOver(text: string, limit: number): number | undefined {
  if (text.length > limit) return Buffer.byteLength(text, 'utf8')
  if (text.length * 3 <= limit) return undefined
  const bytes = Buffer.byteLength(text, 'utf8')
  return bytes > limit ? bytes : undefined
}

/** The total UTF-8 size of the text, image and audio data of `content` when it exceeds `limit`. */
export function contentOver(content: readonly ToolResultContent[], limit: number): number | undefined {
  let chars = 0
  for (const block of content) {
    if (block.type === 'text') chars += block.text.length
    else if (block.type === 'image') chars += block.data?.length ?? block.url?.length ?? 0
    else if (block.type === 'audio') chars += block.data.length
  }
  if (chars * 3 <= limit) return undefined
  let bytes = 0
  for (const block of content) {
    if (block.type === 'text') bytes += Buffer.byteLength(block.text, 'utf8')
    else if (block.type === 'image') bytes += Buffer.byteLength(block.data ?? block.url ?? '', 'utf8')
    else if (block.type === 'audio') bytes += Buffer.byteLength(block.data, 'utf8')
  }
  return bytes > limit ? bytes : undefined
}

/** The total UTF-8 size of `texts` (a result's contexts) when it exceeds `limit`, else undefined. */
export function textsOver(texts: readonly string[], limit: number): number | undefined {
  let chars = 0
  for (const text of texts) chars += text.length
  if (chars * 3 <= limit) return undefined
  let bytes = 0
  for (const text of texts) bytes += Buffer.byteLength(text, 'utf8')
  return bytes > limit ? bytes : undefined
}
