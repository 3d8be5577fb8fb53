import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs'

/** Largest file the docs tools read (the repository's docs are far smaller). */
export const MAX_FILE_BYTES = 1024 * 1024

/**
 * Reads a UTF-8 file at a real path (from `resolveInsideRoot`) without following a link in its last
 * component, and only when it is a regular file no larger than `MAX_FILE_BYTES`; else throws an
 * `Error` naming `shown` (the path as the model wrote it).
 */
export function readTextFile(realPath: string, shown: string): string {
  let fd: number
  try {
    fd = openSync(realPath, constants.O_RDONLY | constants.O_NOFOLLOW)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ELOOP') throw new Error(`${JSON.stringify(shown)} is a symbolic link; not followed`)
    throw error
  }
  try {
    const stat = fstatSync(fd)
    if (stat.isDirectory()) throw new Error(`${JSON.stringify(shown)} is a directory; list it with list_docs`)
    if (!stat.isFile()) throw new Error(`${JSON.stringify(shown)} is not a regular file`)
    if (stat.size > MAX_FILE_BYTES) {
      throw new Error(
        `${JSON.stringify(shown)} is ${stat.size} bytes, more than the ${MAX_FILE_BYTES} this tool reads`,
      )
    }
    const buffer = Buffer.alloc(stat.size)
    let read = 0
    while (read < buffer.length) {
      const n = readSync(fd, buffer, read, buffer.length - read, read)
      if (n === 0) break
      read += n
    }
    return buffer.subarray(0, read).toString('utf8')
  } finally {
    closeSync(fd)
  }
}
