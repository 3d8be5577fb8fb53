import type { ServerResponse } from 'node:http'
import type { Responder } from '../../../../../test-support/replay-server.ts'

/** `data: <json>` events, then `data: [DONE]` unless `done: false`. */
export function sseText(chunks: readonly unknown[], options: { readonly done?: boolean } = {}): string {
  let text = ''
  for (const chunk of chunks) text += `data: ${typeof chunk === 'string' ? chunk : JSON.stringify(chunk)}\n\n`
  if (options.done !== false) text += 'data: [DONE]\n\n'
  return text
}

/** Cuts bytes at the given offsets (sorted, deduplicated, inside the range). */
export function splitAt(bytes: Uint8Array, offsets: readonly number[]): Uint8Array[] {
  const cuts = [...new Set(offsets)].filter((n) => n > 0 && n < bytes.length).sort((a, b) => a - b)
  const pieces: Uint8Array[] = []
  let from = 0
  for (const cut of cuts) {
    pieces.push(bytes.subarray(from, cut))
    from = cut
  }
  pieces.push(bytes.subarray(from))
  return pieces
}

export function writeSseHead(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' })
  res.flushHeaders()
}

/** Writes one piece and waits until it has left the process, so pieces tend to arrive apart. */
export function writePiece(res: ServerResponse, piece: string | Uint8Array): Promise<void> {
  return new Promise((resolve, reject) => {
    res.write(piece, (error) => (error ? reject(error) : setImmediate(resolve)))
  })
}

/**
 * A responder that streams `text` cut at byte offsets `cuts` (which may fall inside a multi-byte
 * UTF-8 character), optionally awaiting `before(i)` before piece `i`, then ends the response.
 */
export function sse(
  text: string,
  options: {
    readonly cuts?: readonly number[]
    readonly before?: (index: number) => Promise<void> | void
    readonly end?: boolean
  } = {},
): Responder {
  return async (res) => {
    writeSseHead(res)
    const pieces = splitAt(Buffer.from(text, 'utf8'), options.cuts ?? [])
    for (const [i, piece] of pieces.entries()) {
      await options.before?.(i)
      await writePiece(res, piece)
    }
    if (options.end !== false) res.end()
  }
}

/** Byte offsets of every occurrence of `needle` in `text` (UTF-8), plus `shift`. */
export function byteOffsetsOf(text: string, needle: string, shift = 0): number[] {
  const bytes = Buffer.from(text, 'utf8')
  const target = Buffer.from(needle, 'utf8')
  const offsets: number[] = []
  for (let at = bytes.indexOf(target); at !== -1; at = bytes.indexOf(target, at + 1)) offsets.push(at + shift)
  return offsets
}

/** A JSON responder with a status, optional headers and body. */
export function answer(status: number, body: unknown, headers: Record<string, string> = {}): Responder {
  return (res) => {
    const text = typeof body === 'string' ? body : JSON.stringify(body)
    res.writeHead(status, {
      'content-type': typeof body === 'string' ? 'text/plain' : 'application/json',
      ...headers,
    })
    res.end(text)
  }
}
