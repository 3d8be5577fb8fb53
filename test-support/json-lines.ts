import type { Readable } from 'node:stream'

/**
 * Calls `onLine` with each line a child prints on `stream` as one JSON object (the fixtures'
 * protocol: the tests wait for lines, never for time). A partial line waits for its newline.
 */
export function onJsonLines<Line>(stream: Readable, onLine: (line: Line) => void): void {
  let buffered = ''
  stream.on('data', (chunk: Buffer) => {
    buffered += chunk.toString()
    let newline: number
    while ((newline = buffered.indexOf('\n')) >= 0) {
      const line = JSON.parse(buffered.slice(0, newline)) as Line
      buffered = buffered.slice(newline + 1)
      onLine(line)
    }
  })
}
