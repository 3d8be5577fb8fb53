import type { CodeLogLevel, CodeRunFailureKind, ResolvedCodeRunLimits } from './types.ts'

/**
 * The messages between the host and a sandbox worker. Values cross as JSON text only; the host
 * parses and checks everything the sandbox produced, so the worker never hands it an object.
 */

/** What the host gives a new worker (`workerData`). */
export interface WorkerInit {
  /** The QuickJS engine, compiled once by the host (a compiled module is shared, not copied). */
  readonly wasmModule: WebAssembly.Module
  /**
   * One Int32 over a SharedArrayBuffer: the id of the last run the host ended. The engine's
   * interrupt handler reads it, so a program in a loop stops without waiting for a message the
   * busy thread could not receive.
   */
  readonly ended: Int32Array
  /** The memory limit of the engine instance the worker prepares before it reports ready. */
  readonly memoryBytes: number
}

/** A binding call's outcome: the result as JSON text (absent for `undefined`), or an error to throw. */
export type CallAnswer =
  | { readonly ok: true; readonly text: string | undefined }
  | { readonly ok: false; readonly name: string; readonly message: string; readonly code?: string }

/**
 * Answers to started calls: `indices[i]` is answered by `entries[i]`, that answer as an entry of the
 * prelude's `settleCalls` text (see answer-entry.ts).
 */
export interface AnswerBatch {
  readonly indices: readonly number[]
  readonly entries: readonly string[]
}

/**
 * Binding calls a run started together, in program order: positions `first`, `first + 1`, … (a run
 * starts its calls in order, so one batch is always consecutive), each with its binding (its
 * position among the run's `names`) and its argument as JSON text (absent for `tools.name()`).
 */
export interface CallBatch {
  readonly first: number
  readonly bindings: readonly number[]
  readonly texts: readonly (string | undefined)[]
}

/** How the program ended, as the worker saw it; a value is still JSON text the host must check. */
export type SandboxOutcome =
  | { readonly kind: 'value'; readonly text: string | undefined }
  | { readonly kind: CodeRunFailureKind; readonly message: string }

export type HostMessage =
  | {
      readonly type: 'run'
      readonly id: number
      /** The wrapped program (see wrap-program.ts). */
      readonly source: string
      /** Its lines and columns are the program's own, so errors may name them. */
      readonly positions: boolean
      readonly names: readonly string[]
      readonly limits: ResolvedCodeRunLimits
      /** `Date.now()` after which the run is out of time. */
      readonly deadline: number
    }
  /** Answers the host had ready in one turn of its event loop, in the order they settled. */
  | ({ readonly type: 'answers'; readonly id: number } & AnswerBatch)
  /** The host has ended run `id` (it already has its result): tear it down and report `done`. */
  | { readonly type: 'stop'; readonly id: number }

export type WorkerMessage =
  | { readonly type: 'ready' }
  /** Binding calls to start on the host (one message per turn of the sandbox, not one per call). */
  | ({ readonly type: 'calls'; readonly id: number } & CallBatch)
  | {
      readonly type: 'log'
      readonly id: number
      readonly level: CodeLogLevel
      readonly text: string
      /** The start of a longer line that went past `outputBytes`. */
      readonly cut: boolean
    }
  /** The engine failed underneath run `id` (for the runtime's `onEngineFault`). */
  | { readonly type: 'fault'; readonly id: number; readonly error: unknown }
  /** Run `id` is over in the worker; the worker is free for the next run. */
  | { readonly type: 'done'; readonly id: number; readonly outcome: SandboxOutcome }
