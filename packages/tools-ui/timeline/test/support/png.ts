import { inflateSync } from 'node:zlib'

/** A decoded PNG: 8-bit RGB or RGBA pixels, row by row. */
export interface DecodedPng {
  readonly width: number
  readonly height: number
  readonly channels: 3 | 4
  readonly pixels: Uint8Array
}

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])

/**
 * Decodes the PNGs a browser screenshot produces (8-bit truecolour, with or without alpha, not
 * interlaced): enough to look at the pixels without an image library.
 */
export function decodePng(file: Uint8Array): DecodedPng {
  const bytes = Buffer.from(file)
  if (!bytes.subarray(0, 8).equals(SIGNATURE)) throw new Error('not a PNG')
  let width = 0
  let height = 0
  let channels: 3 | 4 = 4
  const data: Buffer[] = []
  for (let offset = 8; offset < bytes.length;) {
    const length = bytes.readUInt32BE(offset)
    const type = bytes.toString('latin1', offset + 4, offset + 8)
    const body = bytes.subarray(offset + 8, offset + 8 + length)
    if (type === 'IHDR') {
      width = body.readUInt32BE(0)
      height = body.readUInt32BE(4)
      const [depth, colour, , , interlace] = [body[8], body[9], body[10], body[11], body[12]]
      if (depth !== 8 || (colour !== 2 && colour !== 6) || interlace !== 0)
        throw new Error(`unsupported PNG (depth ${depth}, colour type ${colour}, interlace ${interlace})`)
      channels = colour === 6 ? 4 : 3
    } else if (type === 'IDAT') data.push(body)
    else if (type === 'IEND') break
    offset += 12 + length
  }
  const raw = inflateSync(Buffer.concat(data))
  const stride = width * channels
  const pixels = new Uint8Array(stride * height)
  for (let y = 0; y < height; y += 1) {
    const filter = raw[y * (stride + 1)]
    const line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1))
    const out = y * stride
    for (let x = 0; x < stride; x += 1) {
      const a = x >= channels ? pixels[out + x - channels]! : 0
      const b = y > 0 ? pixels[out - stride + x]! : 0
      const c = x >= channels && y > 0 ? pixels[out - stride + x - channels]! : 0
      let value = line[x]!
      switch (filter) {
        case 0:
          break
        case 1:
          value += a
          break
        case 2:
          value += b
          break
        case 3:
          value += (a + b) >> 1
          break
        case 4: {
          const p = a + b - c
          const pa = Math.abs(p - a)
          const pb = Math.abs(p - b)
          const pc = Math.abs(p - c)
          value += pa <= pb && pa <= pc ? a : pb <= pc ? b : c
          break
        }
        default:
          throw new Error(`bad PNG filter ${filter} on row ${y}`)
      }
      pixels[out + x] = value & 0xff
    }
  }
  return { width, height, channels, pixels }
}

/** How many different colours the image has (a blank page has one). */
export function distinctColours(png: DecodedPng): number {
  const seen = new Set<number>()
  const { pixels, channels } = png
  for (let i = 0; i < pixels.length; i += channels)
    seen.add((pixels[i]! << 16) | (pixels[i + 1]! << 8) | pixels[i + 2]!)
  return seen.size
}

/** How many pixels have exactly this colour (`#rrggbb`). */
export function pixelsOfColour(png: DecodedPng, hex: string): number {
  const target = Number.parseInt(hex.slice(1), 16)
  const { pixels, channels } = png
  let count = 0
  for (let i = 0; i < pixels.length; i += channels)
    if (((pixels[i]! << 16) | (pixels[i + 1]! << 8) | pixels[i + 2]!) === target) count += 1
  return count
}
