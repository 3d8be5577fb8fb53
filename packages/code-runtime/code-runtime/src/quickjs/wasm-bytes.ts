/** Reading and writing the bytes of a WebAssembly module: LEB128 numbers, a growing buffer. */

export class Reader {
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
export class Writer {
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

export const unsignedLeb = (value: number): number[] => {
  const out: number[] = []
  do {
    let byte = value & 0x7f
    value = Math.floor(value / 128)
    if (value !== 0) byte |= 0x80
    out.push(byte)
  } while (value !== 0)
  return out
}

export const signedLeb = (value: number): number[] => {
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
