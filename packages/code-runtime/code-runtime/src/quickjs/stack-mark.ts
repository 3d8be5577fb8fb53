import { Reader, signedLeb, unsignedLeb, Writer } from './wasm-bytes.ts'
import { rewriteCode } from './wasm-code-rewrite.ts'

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
