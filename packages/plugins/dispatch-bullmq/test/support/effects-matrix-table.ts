import type { CallerPoint, Cell, ToolKind, WorkerPoint } from './effects-cells.ts'

// The expected outcome of every cell of the effects crash matrix over PostgreSQL
// (effects-crash-matrix.test.ts), as docs/scaling.md's tables state them.

export interface Expected {
  /** What the watched call's result is after it all: its real result, or INTERRUPTED. */
  readonly answer: 'real' | 'INTERRUPTED'
  /** Effects applied (the supplier's count) and bodies run, over every process. */
  readonly effects: number
  readonly bodies: number
  /** The `attempt` of each `tool/began` of the watched call. */
  readonly attempts: readonly number[]
  /** Whether verifyEffects lists the watched call after the crash, and at the end. */
  readonly unknownAfterCrash: boolean
  readonly unknownAtEnd: boolean
}

const real = (bodies: number, attempts: readonly number[], unknownAfterCrash = false): Expected => ({
  answer: 'real',
  effects: 1,
  bodies,
  attempts,
  unknownAfterCrash,
  unknownAtEnd: false,
})
const interrupted = (effects: number): Expected => ({
  answer: 'INTERRUPTED',
  effects,
  bodies: 1,
  attempts: [1],
  unknownAfterCrash: true,
  unknownAtEnd: true,
})

/** docs/scaling.md's tables, cell by cell: what the caller's crash leaves, local and remote. */
const CALLER_MATRIX: Record<'local' | 'remote', Record<CallerPoint, Record<ToolKind, Expected>>> = {
  local: {
    'before-call': { idempotent: real(1, [1]), once: real(1, [1]) },
    'after-call': { idempotent: real(1, [1]), once: real(1, [1]) },
    'in-body': { idempotent: real(2, [1, 2]), once: interrupted(1) },
    'after-body': { idempotent: real(2, [1, 2]), once: interrupted(1) },
    'after-result': { idempotent: real(1, [1]), once: real(1, [1]) },
  },
  // the job keeps the one body's outcome: a resumed caller re-attaches (T52, T64), nothing runs twice
  remote: {
    'before-call': { idempotent: real(1, [1]), once: real(1, [1]) },
    'after-call': { idempotent: real(1, [1]), once: real(1, [1]) },
    'in-body': { idempotent: real(1, [1, 2]), once: real(1, [1], true) },
    'after-body': { idempotent: real(1, [1, 2]), once: real(1, [1], true) },
    'after-result': { idempotent: real(1, [1]), once: real(1, [1]) },
  },
}

/** A run_code program's call (T63): its own outcome; its run_code is INTERRUPTED in every cell. */
const NESTED_MATRIX: Record<'local' | 'remote', Partial<Record<CallerPoint, Record<ToolKind, Expected>>>> = {
  local: {
    'after-call': { idempotent: real(1, [1]), once: real(1, [1]) },
    'in-body': { idempotent: real(2, [1, 2]), once: interrupted(1) },
    'after-result': { idempotent: real(1, [1]), once: real(1, [1]) },
  },
  remote: { 'in-body': { idempotent: real(1, [1, 2]), once: real(1, [1], true) } },
}

/** The worker dies under the body; the caller lives on (D10). */
const WORKER_MATRIX: Record<WorkerPoint, Record<ToolKind, Expected>> = {
  'before-effect': { idempotent: real(2, [1]), once: interrupted(0) },
  'after-effect': { idempotent: real(2, [1]), once: interrupted(1) },
}

const KINDS = ['idempotent', 'once'] as const

export const callerCells: { cell: Cell; expected: Expected }[] = [
  ...(['local', 'remote'] as const).flatMap((bodies) =>
    (Object.keys(CALLER_MATRIX[bodies]) as CallerPoint[]).flatMap((at) =>
      KINDS.map((kind) => ({
        cell: {
          id: `${bodies[0]}-${at}-${kind}`,
          kind,
          bodies,
          shape: 'top',
          crash: { who: 'caller', at },
        } as Cell,
        expected: CALLER_MATRIX[bodies][at][kind],
      })),
    ),
  ),
  ...(['local', 'remote'] as const).flatMap((bodies) =>
    (Object.keys(NESTED_MATRIX[bodies]) as CallerPoint[]).flatMap((at) =>
      KINDS.map((kind) => ({
        cell: {
          id: `n${bodies[0]}-${at}-${kind}`,
          kind,
          bodies,
          shape: 'nested',
          crash: { who: 'caller', at },
        } as Cell,
        expected: NESTED_MATRIX[bodies][at]![kind],
      })),
    ),
  ),
]

export const workerCells: { cell: Cell; expected: Expected }[] = (
  Object.keys(WORKER_MATRIX) as WorkerPoint[]
).flatMap((at) =>
  KINDS.map((kind) => ({
    cell: {
      id: `w-${at}-${kind}`,
      kind,
      bodies: 'remote',
      shape: 'top',
      crash: { who: 'worker', at },
    } as Cell,
    expected: WORKER_MATRIX[at][kind],
  })),
)
