import { createRequire } from 'node:module'
import { Worker } from 'node:worker_threads'
import { moduleUrl } from './worker-files.ts'

const SWC_SPECIFIER = '@swc/wasm-typescript'

/** A TypeScript program without its types, or the syntax error that kept it from being stripped. */
export type StrippedProgram =
  | {
      readonly ok: true
      readonly source: string
      /**
       * True when every character kept its line and column (types became spaces); false for a
       * program that needed a transform (an `enum`, a `namespace`, a parameter property), which
       * swc reprints, so its runtime errors carry no position.
       */
      readonly positions: boolean
    }
  | {
      readonly ok: false
      readonly message: string
      /** 1-based line and column in the wrapped program, when swc gave one. */
      readonly line?: number
      readonly column?: number
    }

type Reply = StrippedProgram & { readonly id: number }

/**
 * The stripper's thread. swc's TypeScript build is WebAssembly inlined in a 3.7 MB script that
 * compiles synchronously when it is required (about 0.4 s here), so it is loaded in a thread of its
 * own rather than on the host's, whose event loop must stay free; programs then take well under a
 * millisecond each. `strip-only` replaces types with spaces, so positions are kept. What it cannot
 * strip (an enum, a namespace with values, a parameter property) is transformed instead.
 */
const WORKER_SOURCE = String.raw`
const { parentPort, workerData } = require('node:worker_threads')
const swc = require(workerData.swc)
function failure(id, error) {
  const e = error !== null && typeof error === 'object' ? error : { message: String(error) }
  return {
    id,
    ok: false,
    message: typeof e.message === 'string' ? e.message : String(error),
    line: typeof e.startLine === 'number' ? e.startLine : undefined,
    column: typeof e.startColumn === 'number' ? e.startColumn + 1 : undefined,
  }
}
parentPort.on('message', ({ id, source }) => {
  let reply
  try {
    reply = { id, ok: true, source: swc.transformSync(source, { mode: 'strip-only', filename: 'program.ts' }).code, positions: true }
  } catch (error) {
    if (error !== null && typeof error === 'object' && error.code === 'UnsupportedSyntax') {
      try {
        reply = { id, ok: true, source: swc.transformSync(source, { mode: 'transform', filename: 'program.ts' }).code, positions: false }
      } catch (again) {
        reply = failure(id, again)
      }
    } else {
      reply = failure(id, error)
    }
  }
  parentPort.postMessage(reply)
})
`

interface Stripper {
  readonly worker: Worker
  readonly pending: Map<number, { resolve: (reply: Reply) => void; reject: (error: unknown) => void }>
}

// One stripper per process, shared by every runtime: it holds no state between programs.
let stripper: Stripper | undefined
let lastId = 0

function startStripper(): Stripper {
  const swc = createRequire(moduleUrl()).resolve(SWC_SPECIFIER)
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { swc }, env: {} })
  const started: Stripper = { worker, pending: new Map() }
  const fail = (error: unknown): void => {
    if (stripper === started) stripper = undefined
    for (const { reject } of started.pending.values()) reject(error)
    started.pending.clear()
  }
  worker.on('message', (reply: Reply) => {
    const waiting = started.pending.get(reply.id)
    started.pending.delete(reply.id)
    // idle: the thread must not keep the process alive
    if (started.pending.size === 0) worker.unref()
    waiting?.resolve(reply)
  })
  worker.once('error', fail)
  worker.once('exit', (code) => fail(new Error(`the TypeScript stripper's thread exited with code ${code}`)))
  worker.unref()
  return started
}

/**
 * Strips the types of a wrapped TypeScript program (see wrap-program.ts) in the stripper's
 * thread, started on first use. Rejects only when swc cannot be loaded or its thread died.
 */
export function stripTypes(source: string): Promise<StrippedProgram> {
  let current: Stripper
  try {
    current = stripper ??= startStripper()
  } catch (error) {
    return Promise.reject(error)
  }
  const id = (lastId = (lastId % 0x7fffffff) + 1)
  return new Promise<Reply>((resolve, reject) => {
    current.pending.set(id, { resolve, reject })
    current.worker.ref()
    current.worker.postMessage({ id, source })
  }).then(({ id: _id, ...result }) => result as StrippedProgram)
}

/** Loads swc in the stripper's thread ahead of the first TypeScript program (`warmUp`). */
export async function loadTypeStripper(): Promise<void> {
  await stripTypes('')
}
