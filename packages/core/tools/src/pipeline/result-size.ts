import { types } from 'node:util'
import type { ToolResultContent } from '@deepseek-ai/dsh-llm'

/**
 * A lower bound of the UTF-8 size of `value`'s JSON text, counted without running any of its code
 * (property descriptors only: no getter, no proxy trap) and given up as soon as it passes `limit`,
 * so a 100,000,000-element array costs no more to refuse than a value of `limit` bytes. Returns
 * the bound reached (which exceeds `limit` when the value is too large).
 */
export function jsonSizeFloor(value: unknown, limit: number): number {
  let floor = 0
  const seen = new Set<object>()
  const stack: unknown[] = [value]
  while (stack.length > 0 && floor <= limit) {
    const current = stack.pop()
    switch (typeof current) {
      case 'string':
        floor += current.length + 2
        continue
      case 'number':
        floor += numberFloor(current)
        continue
      case 'object':
        break
      default:
        floor += 1
        continue
    }
    if (current === null) {
      floor += 4
      continue
    }
    if (seen.has(current) || types.isProxy(current)) continue
    seen.add(current)
    if (Array.isArray(current)) {
      const length = current.length
      floor += 1 + Math.max(1, length)
      for (let i = 0; i < length && floor <= limit; i++) {
        const descriptor = Object.getOwnPropertyDescriptor(current, i)
        if (descriptor !== undefined && 'value' in descriptor) stack.push(descriptor.value)
      }
      continue
    }
    const keys = Object.keys(current)
    floor += 1 + Math.max(1, keys.length)
    for (let i = 0; i < keys.length && floor <= limit; i++) {
      const key = keys[i]!
      floor += key.length + 3
      const descriptor = Object.getOwnPropertyDescriptor(current, key)
      if (descriptor !== undefined && 'value' in descriptor) stack.push(descriptor.value)
    }
  }
  return floor
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
