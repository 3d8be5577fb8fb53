import { randomUUID } from 'node:crypto'
import { nodeSessionFs, type SessionFs } from '../jsonl/session-fs.ts'
import { errorCode } from '../io-error.ts'

/**
 * Everything the lock protocol takes from its surroundings, so that tests can give each simulated
 * process its own pid, liveness, clock, pause and open-file registry over one real directory.
 */
export interface LockHost {
  readonly fs: SessionFs
  readonly pid: number
  isAlive(pid: number): boolean
  /** Milliseconds, for how long a half-written lock has looked the same. */
  now(): number
  /** Blocks the thread (the store is synchronous); tests advance their clock instead. */
  sleep(ms: number): void
  /** A token no other holder will ever use. */
  token(): string
  /** The session files this process holds, by `dev:ino`: every name of a file meets one entry. */
  readonly heldFiles: Map<string, string>
}

// Shared by every copy of this package loaded in the process.
const HELD_FILES_KEY = Symbol.for('@deepseek-ai/dsh-session/held-files')

function processHeldFiles(): Map<string, string> {
  const global = globalThis as unknown as Record<symbol, Map<string, string> | undefined>
  return (global[HELD_FILES_KEY] ??= new Map())
}

export function defaultLockHost(): LockHost {
  return {
    fs: nodeSessionFs,
    pid: process.pid,
    isAlive,
    now: () => Date.now(),
    sleep,
    token: randomUUID,
    heldFiles: processHeldFiles(),
  }
}

function isAlive(pid: number): boolean {
  if (pid === process.pid) return true
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return errorCode(error) === 'EPERM'
  }
}

function sleep(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms)
}
