import type { CallerPoint, Cell, ToolKind, WorkerPoint } from './effects-cells.ts'

// The expected outcome of every cell of the effects crash matrix (effects-crash-matrix.test.ts), as
// docs/scaling.md's tables state them.

export interface Expected {
  /**
   * What the watched call's result is after it all: its real result, INTERRUPTED, or none at all
   * (a program's call killed before its `tool/call`: it was never recorded, and never ran).
   */
  readonly answer: 'real' | 'INTERRUPTED' | 'none'
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
const interrupted = (effects: number, bodies = 1): Expected => ({
  answer: 'INTERRUPTED',
  effects,
  bodies,
  attempts: [1],
  unknownAfterCrash: true,
  unknownAtEnd: true,
})
const neverRecorded: Expected = {
  answer: 'none',
  effects: 0,
  bodies: 0,
  attempts: [],
  unknownAfterCrash: false,
  unknownAtEnd: false,
}

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
    'before-call': { idempotent: neverRecorded, once: neverRecorded },
    'after-call': { idempotent: real(1, [1]), once: real(1, [1]) },
    'in-body': { idempotent: real(2, [1, 2]), once: interrupted(1) },
    'after-result': { idempotent: real(1, [1]), once: real(1, [1]) },
  },
  remote: {
    'before-call': { idempotent: neverRecorded, once: neverRecorded },
    'in-body': { idempotent: real(1, [1, 2]), once: real(1, [1], true) },
  },
}

/**
 * The worker dies; the caller lives on. Before its started mark (D11) the body never began: the job
 * is dispatched again whatever the tool (D12). After it, an idempotent tool's job is dispatched
 * again (D10), any other call is INTERRUPTED (`WorkerLost`), even where the body had not yet run
 * its first instruction (nothing can tell that apart from a body that had).
 */
const WORKER_MATRIX: Record<WorkerPoint, Record<ToolKind, Expected>> = {
  'after-claim': { idempotent: real(1, [1]), once: real(1, [1], true) },
  'after-mark': { idempotent: real(1, [1]), once: interrupted(0, 0) },
  'before-effect': { idempotent: real(2, [1]), once: interrupted(0) },
  'after-effect': { idempotent: real(2, [1]), once: interrupted(1) },
  'after-body': { idempotent: real(2, [1]), once: interrupted(1) },
}

const KINDS = ['idempotent', 'once'] as const

const callerCell = (
  store: Cell['store'],
  bodies: Cell['bodies'],
  shape: Cell['shape'],
  at: CallerPoint,
  kind: ToolKind,
): Cell => ({
  id: `${store === 'jsonl' ? 'j' : ''}${shape === 'nested' ? 'n' : ''}${bodies[0]}-${at}-${kind}`,
  store,
  kind,
  bodies,
  shape,
  crash: { who: 'caller', at },
})

const points = <T extends string>(table: Partial<Record<T, unknown>>): T[] => Object.keys(table) as T[]

export const callerCells: { cell: Cell; expected: Expected }[] = [
  ...(['local', 'remote'] as const).flatMap((bodies) =>
    points<CallerPoint>(CALLER_MATRIX[bodies]).flatMap((at) =>
      KINDS.map((kind) => ({
        cell: callerCell('postgres', bodies, 'top', at, kind),
        expected: CALLER_MATRIX[bodies][at][kind],
      })),
    ),
  ),
  // remote bodies over the JSONL store: the same outcomes as over PostgreSQL
  ...points<CallerPoint>(CALLER_MATRIX.remote).flatMap((at) =>
    KINDS.map((kind) => ({
      cell: callerCell('jsonl', 'remote', 'top', at, kind),
      expected: CALLER_MATRIX.remote[at][kind],
    })),
  ),
  ...(['local', 'remote'] as const).flatMap((bodies) =>
    points<CallerPoint>(NESTED_MATRIX[bodies]).flatMap((at) =>
      KINDS.map((kind) => ({
        cell: callerCell('postgres', bodies, 'nested', at, kind),
        expected: NESTED_MATRIX[bodies][at]![kind],
      })),
    ),
  ),
]

export const workerCells: { cell: Cell; expected: Expected }[] = points<WorkerPoint>(WORKER_MATRIX).flatMap(
  (at) =>
    KINDS.map((kind) => ({
      cell: {
        id: `w-${at}-${kind}`,
        store: 'postgres',
        kind,
        bodies: 'remote',
        shape: 'top',
        crash: { who: 'worker', at },
      } as Cell,
      expected: WORKER_MATRIX[at][kind],
    })),
)
