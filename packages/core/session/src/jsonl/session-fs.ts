import {
  closeSync,
  fstatSync,
  fsyncSync,
  ftruncateSync,
  linkSync,
  lstatSync,
  openSync,
  readSync,
  realpathSync,
  renameSync,
  statSync,
  unlinkSync,
  writeSync,
  type Stats,
} from 'node:fs'

/** What the store needs to know about a file. */
export interface FileStat {
  readonly dev: number
  readonly ino: number
  readonly nlink: number
  readonly size: number
  readonly mtimeMs: number
}

/**
 * Every file-system call the JSONL store and its lock make, synchronous like the store. The real
 * implementation is `nodeSessionFs`; tests wrap it to fail a call (ENOSPC, EIO), to count fsyncs, or
 * to pause at any call and run another opener, which makes races deterministic.
 */
export interface SessionFs {
  open(path: string, flags: number, mode?: number): number
  close(fd: number): void
  read(fd: number, buffer: Uint8Array, offset: number, length: number, position: number): number
  write(fd: number, buffer: Uint8Array, offset: number, length: number, position: number): number
  fsync(fd: number): void
  ftruncate(fd: number, length: number): void
  fstat(fd: number): FileStat
  /** Does not follow a final symlink; `undefined` when nothing is there. */
  lstat(path: string): FileStat | undefined
  /** Follows symlinks; `undefined` when nothing is there. */
  stat(path: string): FileStat | undefined
  link(existingPath: string, newPath: string): void
  unlink(path: string): void
  rename(oldPath: string, newPath: string): void
  realpath(path: string): string
}

export const nodeSessionFs: SessionFs = {
  open: (path, flags, mode) => openSync(path, flags, mode),
  close: (fd) => closeSync(fd),
  read: (fd, buffer, offset, length, position) => readSync(fd, buffer, offset, length, position),
  write: (fd, buffer, offset, length, position) => writeSync(fd, buffer, offset, length, position),
  fsync: (fd) => fsyncSync(fd),
  ftruncate: (fd, length) => ftruncateSync(fd, length),
  fstat: (fd) => toFileStat(fstatSync(fd)),
  lstat: (path) => optionalStat(lstatSync(path, { throwIfNoEntry: false })),
  stat: (path) => optionalStat(statSync(path, { throwIfNoEntry: false })),
  link: (existingPath, newPath) => linkSync(existingPath, newPath),
  unlink: (path) => unlinkSync(path),
  rename: (oldPath, newPath) => renameSync(oldPath, newPath),
  realpath: (path) => realpathSync.native(path),
}

function toFileStat(stats: Stats): FileStat {
  return { dev: stats.dev, ino: stats.ino, nlink: stats.nlink, size: stats.size, mtimeMs: stats.mtimeMs }
}

function optionalStat(stats: Stats | undefined): FileStat | undefined {
  return stats === undefined ? undefined : toFileStat(stats)
}

/** Writes all of `bytes` at `position`; a write that makes no progress is an error, never a loop. */
export function writeFully(fs: SessionFs, fd: number, bytes: Uint8Array, position: number): void {
  for (let offset = 0; offset < bytes.length;) {
    const written = fs.write(fd, bytes, offset, bytes.length - offset, position + offset)
    if (!(written > 0)) {
      throw Object.assign(new Error(`write made no progress (${written} bytes written)`), { code: 'EIO' })
    }
    offset += written
  }
}

/** The same file: device and inode numbers. */
export function sameFile(a: Pick<FileStat, 'dev' | 'ino'>, b: Pick<FileStat, 'dev' | 'ino'>): boolean {
  return a.dev === b.dev && a.ino === b.ino
}
