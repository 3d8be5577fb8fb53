import { Reader, unsignedLeb, Writer } from './wasm-bytes.ts'

/**
 * The walk over a module's code section that the stack mark needs (stack-mark.ts): every
 * instruction of every body is decoded, so a `global.set` is found only where it is an
 * instruction, never inside another's immediates.
 */

/** How an instruction's immediates are laid out, by opcode (see `IMMEDIATES`). */
const NONE = 0
const LEB = 1
const TWO_LEBS = 2
const BLOCK_TYPE = 3
const BR_TABLE = 4
const TYPE_VECTOR = 5
const BYTE = 6
const FOUR_BYTES = 7
const EIGHT_BYTES = 8
const PREFIXED = 9
const GLOBAL_SET = 10
const UNKNOWN = 255

/** The immediates of every one-byte opcode of WebAssembly 2.0 without SIMD; anything else is refused. */
const IMMEDIATES = (() => {
  const table = new Uint8Array(256).fill(UNKNOWN)
  const set = (kind: number, ...ops: number[]): void => ops.forEach((op) => (table[op] = kind))
  set(NONE, 0x00, 0x01, 0x05, 0x0b, 0x0f, 0x1a, 0x1b, 0xd1)
  for (let op = 0x45; op <= 0xc4; op++) table[op] = NONE // numeric, sign extension included
  set(BLOCK_TYPE, 0x02, 0x03, 0x04)
  set(LEB, 0x0c, 0x0d, 0x10, 0x12, 0x20, 0x21, 0x22, 0x23, 0x25, 0x26, 0xd2, 0x41, 0x42)
  set(TWO_LEBS, 0x11, 0x13)
  for (let op = 0x28; op <= 0x3e; op++) table[op] = TWO_LEBS // loads and stores: a memarg
  set(BR_TABLE, 0x0e)
  set(TYPE_VECTOR, 0x1c)
  set(BYTE, 0x3f, 0x40, 0xd0)
  set(FOUR_BYTES, 0x43)
  set(EIGHT_BYTES, 0x44)
  set(PREFIXED, 0xfc)
  set(GLOBAL_SET, 0x24)
  return table
})()

/** The byte after the LEB128 number at `at`. */
function skipLeb(bytes: Uint8Array, at: number): number {
  while ((bytes[at++]! & 0x80) !== 0);
  return at
}

/** The code section with `mark` after every `global.set` of the stack pointer. */
export function rewriteCode(reader: Reader, mark: readonly number[], pointer: number): Uint8Array {
  const out = new Writer()
  const count = reader.u32()
  out.write(unsignedLeb(count))
  const body = new Writer()
  const bytes = reader.bytes
  let sets = 0
  for (let n = 0; n < count; n++) {
    const size = reader.u32()
    const end = reader.at + size
    body.length = 0
    let copied = reader.at
    for (let groups = reader.u32(); groups > 0; groups--) {
      reader.u32()
      reader.byte()
    }
    let at = reader.at
    // a body without the byte of `global.set` anywhere sets no global: copied as it is, unread
    const first = bytes.indexOf(0x24, at)
    if (first === -1 || first >= end) at = end
    while (at < end) {
      const op = bytes[at++]!
      const kind = IMMEDIATES[op]!
      if (kind === NONE) continue
      if (kind === LEB) at = skipLeb(bytes, at)
      else if (kind === TWO_LEBS) at = skipLeb(bytes, skipLeb(bytes, at))
      else if (kind === GLOBAL_SET) {
        // the global's index: LLVM writes one byte for the stack pointer's, any length is read
        let target = bytes[at++]!
        if (target >= 0x80) {
          target &= 0x7f
          for (let shift = 7, byte = 0x80; (byte & 0x80) !== 0; shift += 7) {
            byte = bytes[at++]!
            target += (byte & 0x7f) * 2 ** shift
          }
        }
        if (target !== pointer) continue
        body.copy(bytes, copied, at)
        body.write(mark)
        copied = at
        sets++
      } else if (kind === BLOCK_TYPE) {
        const type = bytes[at]!
        at = type === 0x40 || (type >= 0x6f && type <= 0x7f) ? at + 1 : skipLeb(bytes, at)
      } else if (kind === BYTE) at++
      else if (kind === FOUR_BYTES) at += 4
      else if (kind === EIGHT_BYTES) at += 8
      else if (kind === BR_TABLE) {
        const targets = new Reader(bytes)
        targets.at = at
        for (let left = targets.u32() + 1; left > 0; left--) targets.u32()
        at = targets.at
      } else if (kind === TYPE_VECTOR) {
        const types = new Reader(bytes)
        types.at = at
        types.skip(types.u32())
        at = types.at
      } else if (kind === PREFIXED) at = skipPrefixed(bytes, at)
      else throw new Error(`unknown opcode 0x${op.toString(16)}`)
    }
    if (at !== end) throw new Error('instruction past its body')
    reader.at = end
    body.copy(bytes, copied, end)
    out.write(unsignedLeb(body.length))
    out.copy(body.bytes, 0, body.length)
  }
  if (sets === 0) throw new Error('the stack pointer is never written')
  return out.done()
}

/** The byte after the 0xfc-prefixed instruction whose sub-opcode starts at `at`. */
function skipPrefixed(bytes: Uint8Array, at: number): number {
  const reader = new Reader(bytes)
  reader.at = at
  const sub = reader.u32()
  if (sub <= 7) return reader.at // saturating truncations
  if (sub === 8) {
    reader.u32()
    reader.byte()
  } else if (sub === 9 || sub === 13 || (sub >= 15 && sub <= 17)) reader.u32()
  else if (sub === 10) reader.skip(2)
  else if (sub === 11) reader.byte()
  else if (sub === 12 || sub === 14) {
    reader.u32()
    reader.u32()
  } else throw new Error(`unknown opcode 0xfc ${sub}`)
  return reader.at
}
