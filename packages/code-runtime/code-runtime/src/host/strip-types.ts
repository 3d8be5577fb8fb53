import { createRequire } from 'node:module'
import { Worker } from 'node:worker_threads'
import { moduleUrl } from './worker-files.ts'

const SWC_SPECIFIER = '@swc/wasm-typescript'

/** A TypeScript program without its types, or why it could not be stripped. */
export type StrippedProgram =
  | {
      readonly ok: true
      readonly source: string
      /**
       * True when every character kept its line and column (types became spaces); false for a
       * program that needed a transform (an `enum`, a `namespace` with values, a parameter
       * property), which swc reprints, so its runtime errors carry no position.
       */
      readonly positions: boolean
    }
  | {
      readonly ok: false
      /**
       * `syntax`: swc's own verdict on the program; `too-deep`: it nests past swc's stack;
       * `broken`: swc failed on it in some other way (a trap inside its WebAssembly).
       */
      readonly reason: 'syntax' | 'too-deep' | 'broken'
      readonly message: string
      /** 1-based line and column in the wrapped program, when swc gave one. */
      readonly line?: number
      readonly column?: number
    }

type Reply = StrippedProgram & { readonly id: number; readonly fatal?: true }

/**
 * The stripper's thread. swc's TypeScript build is WebAssembly inlined in a 3.7 MB script that
 * compiles synchronously when it is required (about 0.5 s), so it is loaded in a thread of its own
 * rather than on the host's, whose event loop must stay free; programs then take well under a
 * millisecond each. `strip-only` replaces types with spaces, so positions are kept. What it cannot
 * strip (an enum, a namespace with values, a parameter property) is transformed instead.
 *
 * swc reports a program's errors as plain objects with a `code`. Anything else it throws (a stack
 * overflow on deeply nested input, in a thread a WebAssembly trap: "memory access out of bounds")
 * leaves its instance unusable: every later call fails the same way. The thread then answers that
 * program with `fatal` and the host moves whatever else it had sent to a fresh thread and ends this
 * one; a thread that dies without a word has its programs sent again once.
 */
const WORKER_SOURCE = String.raw`
const { parentPort, workerData } = require('node:worker_threads')
const swc = require(workerData.swc)
const isSwcError = (e) => e !== null && typeof e === 'object' && !(e instanceof Error) && typeof e.code === 'string'
function failure(id, error) {
  if (!isSwcError(error)) {
    // a RangeError (the JavaScript stack) or a WebAssembly RuntimeError (its own stack, in its memory)
    const deep = error instanceof RangeError || (error instanceof Error && error.name === 'RuntimeError')
    const message = error instanceof Error ? error.message : String(error)
    return { id, ok: false, reason: deep ? 'too-deep' : 'broken', message, fatal: true }
  }
  return {
    id,
    ok: false,
    reason: 'syntax',
    message: typeof error.message === 'string' ? error.message : String(error.code),
    line: typeof error.startLine === 'number' ? error.startLine : undefined,
    column: typeof error.startColumn === 'number' ? error.startColumn + 1 : undefined,
  }
}
parentPort.on('message', ({ id, source }) => {
  let reply
  try {
    reply = { id, ok: true, source: swc.transformSync(source, { mode: 'strip-only', filename: 'program.ts' }).code, positions: true }
  } catch (error) {
    if (isSwcError(error) && error.code === 'UnsupportedSyntax') {
      try {
        reply = { id, ok: true, source: swc.transformSync(source, { mode: 'transform', filename: 'program.ts' }).code, positions: false }
      } catch (again) {
        reply = failure(id, again)
      }
    } else {
      reply = failure(id, error)
    }
  }
  // after a fatal failure the host ends this thread; what it sent meanwhile goes to another one
  parentPort.postMessage(reply)
})
`

interface Pending {
  readonly source: string
  readonly resolve: (result: StrippedProgram) => void
  readonly reject: (error: unknown) => void
  /** Its thread died before answering it once already. */
  readonly retried: boolean
}

interface Stripper {
  readonly worker: Worker
  readonly pending: Map<number, Pending>
}

// One stripper per process, shared by every runtime: it holds no state between programs.
let stripper: Stripper | undefined
let lastId = 0

function startStripper(): Stripper {
  const swc = createRequire(moduleUrl()).resolve(SWC_SPECIFIER)
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { swc }, env: {} })
  const started: Stripper = { worker, pending: new Map() }
  /** Hands the thread's other programs to a fresh thread (`error` for those sent there before). */
  const abandon = (error: unknown): void => {
    if (stripper === started) stripper = undefined
    const orphans = [...started.pending.values()]
    started.pending.clear()
    for (const orphan of orphans) {
      if (error !== undefined && orphan.retried) orphan.reject(error)
      else submit(orphan.source, error !== undefined).then(orphan.resolve, orphan.reject)
    }
  }
  // A thread that dies without a word: its programs are sent again once; a program whose thread
  // died under it twice is taken to be the cause.
  const died = (error: unknown): void => abandon(error)
  worker.on('message', (reply: Reply) => {
    const waiting = started.pending.get(reply.id)
    started.pending.delete(reply.id)
    if (reply.fatal === true) {
      // this program broke swc's instance: the others did not, and go to a fresh thread
      worker.removeAllListeners('exit')
      worker.removeAllListeners('error')
      worker.on('error', () => {})
      abandon(undefined)
      void worker.terminate()
    } else if (started.pending.size === 0) {
      // idle: the thread must not keep the process alive
      worker.unref()
    }
    if (waiting === undefined) return
    const { id: _id, fatal: _fatal, ...result } = reply
    waiting.resolve(result as StrippedProgram)
  })
  worker.once('error', died)
  worker.once('exit', (code) => died(new Error(`the TypeScript stripper's thread exited with code ${code}`)))
  worker.unref()
  return started
}

function submit(source: string, retried: boolean): Promise<StrippedProgram> {
  let current: Stripper
  try {
    current = stripper ??= startStripper()
  } catch (error) {
    return Promise.reject(error)
  }
  const id = (lastId = (lastId % 0x7fffffff) + 1)
  return new Promise<StrippedProgram>((resolve, reject) => {
    current.pending.set(id, { source, resolve, reject, retried })
    current.worker.ref()
    current.worker.postMessage({ id, source })
  })
}

/**
 * Strips the types of a wrapped TypeScript program (see wrap-program.ts) in the stripper's
 * thread, started on first use. Rejects only when swc cannot be loaded or its thread keeps dying.
 */
export function stripTypes(source: string): Promise<StrippedProgram> {
  return submit(source, false)
}

/** Loads swc in the stripper's thread ahead of the first TypeScript program (`warmUp`). */
export async function loadTypeStripper(): Promise<void> {
  await stripTypes('')
}
