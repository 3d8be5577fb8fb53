import { randomUUID } from 'node:crypto'
import type { LockHost } from '../../src/lock/lock-host.ts'
import { nodeSessionFs, type SessionFs } from '../../src/jsonl/session-fs.ts'

/** Processes that share one real directory, one clock and one table of live pids. */
export interface World {
  readonly alive: Set<number>
  /** Milliseconds; advanced only by `sleep`. */
  clock: number
  /**
   * How far one `sleep(ms)` moves the clock: `ms * sleepScale`. Race tests that only need a waiter
   * to give up eventually raise it, so that waiting costs a few polls instead of hundreds.
   */
  readonly sleepScale: number
}

export function createWorld(options?: { sleepScale?: number }): World {
  return { alive: new Set(), clock: 0, sleepScale: options?.sleepScale ?? 1 }
}

/** One file-system call as seen by a hook: its name and arguments. */
export interface FsCall {
  readonly index: number
  readonly name: keyof SessionFs
  readonly args: readonly unknown[]
}

/** Thrown out of a simulated process that crashed: it runs no more code, like a SIGKILL. */
export class Crash extends Error {
  constructor(readonly pid: number) {
    super(`process ${pid} crashed`)
  }
}

export interface SimulatedProcess {
  readonly host: LockHost
  readonly pid: number
  /** File-system calls made so far. */
  readonly calls: FsCall[]
  /** Called before each file-system call; may run other processes (a pause) or call `crash`. */
  beforeCall: ((call: FsCall) => void) | undefined
  /** Replaces a call's effect (to fail it with ENOSPC, say); `undefined` lets it run. */
  override: ((call: FsCall, run: () => unknown) => unknown) | undefined
  /** Called on each `sleep`, after the clock moved. */
  onSleep: ((ms: number) => void) | undefined
  /** From now on every file-system call throws `Crash` and the pid is dead. */
  crash(): never
  /** Whether `crash` was called: whatever error then came out of the store, the process is dead. */
  readonly crashed: boolean
}

let nextPid = 1_000_000

/**
 * A simulated process over the real file system: its own pid (alive until it crashes), registry of
 * open files, and hooks around every file-system call. Running another process inside `beforeCall`
 * pauses this one at exactly that call, which makes a race deterministic.
 */
export function simulatedProcess(world: World): SimulatedProcess {
  const pid = nextPid++
  world.alive.add(pid)
  let crashed = false
  const calls: FsCall[] = []
  const proc: SimulatedProcess = {
    pid,
    calls,
    beforeCall: undefined,
    override: undefined,
    onSleep: undefined,
    crash: () => {
      crashed = true
      world.alive.delete(pid)
      throw new Crash(pid)
    },
    get crashed() {
      return crashed
    },
    host: undefined as unknown as LockHost,
  }
  const wrap = <K extends keyof SessionFs>(name: K): SessionFs[K] =>
    ((...args: unknown[]) => {
      if (crashed) throw new Crash(pid)
      const call: FsCall = { index: calls.length, name, args }
      calls.push(call)
      proc.beforeCall?.(call)
      if (crashed) throw new Crash(pid)
      const run = (): unknown => (nodeSessionFs[name] as (...a: unknown[]) => unknown)(...args)
      return proc.override === undefined ? run() : proc.override(call, run)
    }) as SessionFs[K]
  const fs = Object.fromEntries(
    (Object.keys(nodeSessionFs) as (keyof SessionFs)[]).map((name) => [name, wrap(name)]),
  ) as unknown as SessionFs
  ;(proc as { host: LockHost }).host = {
    fs,
    pid,
    isAlive: (other) => world.alive.has(other),
    now: () => world.clock,
    sleep: (ms) => {
      if (crashed) throw new Crash(pid)
      world.clock += ms * world.sleepScale
      proc.onSleep?.(ms)
    },
    token: randomUUID,
    heldFiles: new Map(),
  }
  return proc
}

/** A system error like Node's, for injected failures. */
export function systemError(code: string, syscall: string): Error {
  return Object.assign(new Error(`${code}: injected failure, ${syscall}`), { code, syscall })
}
