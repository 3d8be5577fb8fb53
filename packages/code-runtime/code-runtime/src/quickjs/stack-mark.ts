/**
 * The engine's C stack low-water mark. The engine's stack lives in its WebAssembly memory and grows
 * down from its stack pointer (a mutable global); a run writes stack bytes only at or above the
 * lowest value that pointer took. `instrumentStackMark` rewrites the engine's module so that every
 * write of the stack pointer also keeps the lowest value it has held in a word of the memory
 * (`STACK_MARK_ADDRESS`, below the first byte of the module's static data, which the build leaves
 * unused): a restore then reads how deep the run went and leaves alone the part of the stack below
 * that, which the run cannot have written (memory-snapshot.ts). Exact by construction: every change
 * of the pointer, in every function, goes through the mark.
 */

/** Where the mark lives: a word of the first 1 KiB, which emscripten's layout keeps free. */
export const STACK_MARK_ADDRESS = 16
/** The custom section that says a module carries the mark, and where its stack ends (JSON). */
export const STACK_MARK_SECTION = 'dsh-stack-mark'
/** The engine build's stack size (emscripten's STACK_SIZE of quickjs-emscripten): the stack's floor is its top minus this. */
const STACK_BYTES = 5 * 1024 * 1024

/** What a restore needs to know of an instrumented module. */
export interface StackLayout {
  /** The byte address of the mark (an unsigned 32-bit word). */
  readonly markAddress: number
  /** The lowest byte of the stack: below it lie the static data and their zeros, never skipped. */
  readonly floor: number
  /** The stack's top (the pointer's initial value): above it lies the heap, never skipped. */
  readonly top: number
}

/** Rewrites `bytes` (a WebAssembly module) with the mark, or returns undefined if it cannot prove it (see above). */
export function instrumentStackMark(bytes: Uint8Array): Uint8Array | undefined {
  try {
    return instrument(bytes)
  } catch {
    return undefined
  }
}

/** The layout recorded in an instrumented module, or undefined for a module without the mark. */
export function readStackLayout(sections: readonly ArrayBuffer[]): StackLayout | undefined {
  if (sections.length !== 1) return undefined
  const parsed = JSON.parse(new TextDecoder().decode(sections[0])) as Partial<
    Record<keyof StackLayout, unknown>
  >
  const { markAddress, floor, top } = parsed
  if (typeof markAddress !== 'number' || typeof floor !== 'number' || typeof top !== 'number')
    return undefined
  return { markAddress, floor, top }
}

class Reader {
  at = 0
  constructor(readonly bytes: Uint8Array) {}
  byte(): number {
    if (this.at >= this.bytes.length) throw new Error('truncated module')
    return this.bytes[this.at++]!
  }
  u32(): number {
    let result = 0
    let shift = 0
    for (;;) {
      const byte = this.byte()
      result += (byte & 0x7f) * 2 ** shift
      if ((byte & 0x80) === 0) return result
      shift += 7
      if (shift > 28) throw new Error('bad LEB128')
    }
  }
  /** A signed LEB128 (i32, i64, s33): its value is only needed for i32, skipped otherwise. */
  s32(): number {
    let result = 0
    let shift = 0
    let byte: number
    do {
      byte = this.byte()
      if (shift < 32) result |= (byte & 0x7f) << shift
      shift += 7
    } while ((byte & 0x80) !== 0)
    if (shift < 32 && (byte & 0x40) !== 0) result |= -1 << shift
    return result
  }
  skip(count: number): void {
    this.at += count
    if (this.at > this.bytes.length) throw new Error('truncated module')
  }
}

/** A growing byte buffer. */
class Writer {
  bytes = new Uint8Array(1 << 16)
  length = 0
  /** Appends a few bytes. */
  write(data: readonly number[]): void {
    this.reserve(data.length)
    for (let i = 0; i < data.length; i++) this.bytes[this.length++] = data[i]!
  }
  /** Appends `data[from..to)`. */
  copy(data: Uint8Array, from: number, to: number): void {
    const length = to - from
    this.reserve(length)
    const bytes = this.bytes
    // most pieces are a few bytes: a loop, as a subarray for TypedArray#set costs more than them
    if (length > 64) bytes.set(data.subarray(from, to), this.length)
    else for (let i = from, at = this.length; i < to; i++, at++) bytes[at] = data[i]!
    this.length += length
  }
  private reserve(length: number): void {
    if (this.length + length <= this.bytes.length) return
    const grown = new Uint8Array(Math.max(this.bytes.length * 2, this.length + length))
    grown.set(this.bytes.subarray(0, this.length))
    this.bytes = grown
  }
  done(): Uint8Array {
    return this.bytes.subarray(0, this.length)
  }
}

const unsignedLeb = (value: number): number[] => {
  const out: number[] = []
  do {
    let byte = value & 0x7f
    value = Math.floor(value / 128)
    if (value !== 0) byte |= 0x80
    out.push(byte)
  } while (value !== 0)
  return out
}

const signedLeb = (value: number): number[] => {
  const out: number[] = []
  for (;;) {
    const byte = value & 0x7f
    value >>= 7
    if ((value === 0 && (byte & 0x40) === 0) || (value === -1 && (byte & 0x40) !== 0)) {
      out.push(byte)
      return out
    }
    out.push(byte | 0x80)
  }
}

/** `if (sp < mark) mark = sp`, with `sp` the stack pointer global: appended after each write of it. */
function markCode(pointer: number): number[] {
  const get = [0x23, ...unsignedLeb(pointer)]
  const address = [0x41, ...signedLeb(STACK_MARK_ADDRESS)]
  // i32.load / i32.store with alignment 2^2 and offset 0
  return [...get, ...address, 0x28, 0x02, 0x00, 0x49, 0x04, 0x40, ...address, ...get, 0x36, 0x02, 0x00, 0x0b]
}

function instrument(bytes: Uint8Array): Uint8Array {
  const reader = new Reader(bytes)
  reader.skip(8)
  const sections: { id: number; start: number; end: number }[] = []
  let importedGlobals = 0
  const globals: { mutable: boolean; i32: boolean; init: number | undefined }[] = []
  let dataEnd = 0
  while (reader.at < bytes.length) {
    const id = reader.byte()
    const size = reader.u32()
    const start = reader.at
    sections.push({ id, start, end: start + size })
    if (id === 2) importedGlobals = countImportedGlobals(reader)
    if (id === 6) readGlobals(reader, globals)
    if (id === 11) dataEnd = readDataEnd(reader)
    if (id === 0 && readName(reader) === STACK_MARK_SECTION) throw new Error('already instrumented')
    reader.at = start + size
  }
  // emscripten's only mutable i32 global initialized by a constant is the stack pointer
  const candidates = globals.flatMap((global, index) =>
    global.mutable && global.i32 && global.init !== undefined ? [{ index, top: global.init }] : [],
  )
  if (importedGlobals !== 0 || candidates.length !== 1) throw new Error('no single stack pointer')
  const { index: pointer, top } = candidates[0]!
  const floor = top - STACK_BYTES
  // the stack must lie above the static data and the mark below them (a layout it was not built for is left alone)
  if (floor < dataEnd || dataEnd === 0 || STACK_MARK_ADDRESS + 4 > 1024) throw new Error('unexpected layout')
  const out = new Writer()
  out.copy(bytes, 0, 8)
  for (const section of sections) {
    const body =
      section.id === 10
        ? rewriteCode(new Reader(bytes.subarray(section.start, section.end)), markCode(pointer), pointer)
        : bytes.subarray(section.start, section.end)
    out.write([section.id, ...unsignedLeb(body.length)])
    out.copy(body, 0, body.length)
  }
  const name = new TextEncoder().encode(STACK_MARK_SECTION)
  const layout = new TextEncoder().encode(JSON.stringify({ markAddress: STACK_MARK_ADDRESS, floor, top }))
  out.write([0, ...unsignedLeb(unsignedLeb(name.length).length + name.length + layout.length)])
  out.write(unsignedLeb(name.length))
  out.copy(name, 0, name.length)
  out.copy(layout, 0, layout.length)
  return out.done()
}

function readName(reader: Reader): string {
  const length = reader.u32()
  const start = reader.at
  reader.skip(length)
  return new TextDecoder().decode(reader.bytes.subarray(start, start + length))
}

function countImportedGlobals(reader: Reader): number {
  let count = 0
  for (let n = reader.u32(); n > 0; n--) {
    readName(reader)
    readName(reader)
    const kind = reader.byte()
    if (kind === 0) reader.u32()
    else if (kind === 1) {
      reader.byte()
      skipLimits(reader)
    } else if (kind === 2) skipLimits(reader)
    else if (kind === 3) {
      reader.skip(2)
      count++
    } else throw new Error('unknown import kind')
  }
  return count
}

function skipLimits(reader: Reader): void {
  const flags = reader.byte()
  reader.u32()
  if ((flags & 1) !== 0) reader.u32()
}

function readGlobals(
  reader: Reader,
  globals: { mutable: boolean; i32: boolean; init: number | undefined }[],
): void {
  for (let n = reader.u32(); n > 0; n--) {
    const type = reader.byte()
    const mutable = reader.byte() === 1
    const op = reader.byte()
    let init: number | undefined
    if (op === 0x41) init = reader.s32() >>> 0
    else if (op === 0x42) reader.s32()
    else if (op === 0x43) reader.skip(4)
    else if (op === 0x44) reader.skip(8)
    else if (op === 0x23) reader.u32()
    else throw new Error('unknown global initializer')
    if (reader.byte() !== 0x0b) throw new Error('long global initializer')
    globals.push({ mutable, i32: type === 0x7f, init })
  }
}

function readDataEnd(reader: Reader): number {
  let end = 0
  for (let n = reader.u32(); n > 0; n--) {
    const flags = reader.u32()
    if (flags !== 0) throw new Error('unexpected data segment')
    if (reader.byte() !== 0x41) throw new Error('unexpected data offset')
    const offset = reader.s32() >>> 0
    if (reader.byte() !== 0x0b) throw new Error('unexpected data offset')
    const length = reader.u32()
    reader.skip(length)
    end = Math.max(end, offset + length)
  }
  return end
}

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
function rewriteCode(reader: Reader, mark: readonly number[], pointer: number): Uint8Array {
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
