/**
 * Reads a body as text, stopping after `maxBytes` (the rest is cancelled). `onChunk` runs after
 * every read, so a caller's idle timer can be re-armed while a slow body trickles in.
 */
export async function readText(
  body: ReadableStream<Uint8Array>,
  maxBytes: number,
  onChunk: () => void = () => {},
): Promise<string> {
  const reader = body.getReader()
  const decoder = new TextDecoder()
  let text = ''
  let bytes = 0
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      onChunk()
      bytes += value.byteLength
      text += decoder.decode(value, { stream: true })
      if (bytes >= maxBytes) break
    }
    return text + decoder.decode()
  } finally {
    reader.cancel().catch(() => {})
  }
}
