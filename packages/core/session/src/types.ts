import type { JsonValue, ToolMessage } from '@deepseek-ai/dsh-llm'

/** How an event changes the model-visible history. */
export type SurfaceOp = 'append' | 'replace' | 'remove'

/**
 * One entry of the append-only log. Events handed out by a session are deep-frozen and detached
 * from whatever the caller passed to `append`.
 *
 * Events read back from a file keep any extra fields a newer writer added, exactly as written.
 */
export interface SessionEvent<T extends string = string, D extends JsonValue = JsonValue> {
  /** 1-based, strictly increasing by one within a session. */
  readonly seq: number
  /** Free-form, e.g. `tool/call`; unknown types are kept as-is. */
  readonly type: T
  /** ISO-8601 time at append, from the session's clock. */
  readonly time: string
  readonly data: D
  readonly surfaceOp?: SurfaceOp
  /** Seqs of earlier events this one derives from (a `tool/result` cites its `tool/call`). */
  readonly sourceEventSeqs?: readonly number[]
}

export interface AppendOptions {
  readonly surfaceOp?: SurfaceOp
  /** Integers, each ≥ 1 and below the new event's seq, without repeats. */
  readonly sourceEventSeqs?: readonly number[]
}

export interface ReadOptions {
  /** Only events with `seq > afterSeq` (default 0: all). */
  readonly afterSeq?: number
  /** Only events of these types. */
  readonly types?: readonly string[]
}

/**
 * An append-only event log (T28).
 *
 * @example
 * const session = createMemorySession()
 * const call = session.append('tool/call', { turn: 1, step: 1, callId: 'c1', name: 'ls', arguments: '{}' })
 * session.append('tool/result', resultData, { surfaceOp: 'append', sourceEventSeqs: [call.seq] })
 */
export interface Session {
  /**
   * Appends one event and returns it. Synchronous. Validates `type` (non-empty, ≤ 200 chars) and
   * `options`, snapshots `data` as lossless JSON (detached; later mutation of the caller's value never
   * reaches the log; a frozen snapshot from `snapshotJsonValue(…, { freeze: true })` is kept by
   * reference) and returns a deep-frozen event. The event is durable per the store's policy before
   * this returns. Throws `SessionError` (`INVALID_ARGUMENT`, `NOT_JSON`, `CLOSED`, `IO`, and `LOCKED`
   * when a file session no longer holds its file) and then appends nothing.
   */
  append(type: string, data: unknown, options?: AppendOptions): SessionEvent
  /** All events in seq order, as a frozen array (a fresh view, never the live internal array). */
  events(): readonly SessionEvent[]
  /** Events with `seq > afterSeq`, optionally only the given types, in seq order. */
  read(options?: ReadOptions): readonly SessionEvent[]
  /** Seq of the last event; 0 when empty. */
  readonly lastSeq: number
  readonly closed: boolean
  /**
   * A commit point (T59): makes every event appended so far durable, for a store that groups its
   * writes (a JSONL session with `durability: 'step'`); returns at once for the others, whose
   * events are durable when `append` returns. Throws `SessionError` (`LOCKED`, `IO`) when it cannot;
   * the session then takes no more appends. The agent loop commits before each model call, at the
   * end of each turn, before a body that declares `effects: 'external'`, and `executeToolCalls`
   * before it resolves. Optional, so sessions written before it still fit; the memory and JSONL
   * sessions have it.
   */
  commit?(): void
  /** Idempotent: commits what is held (T59), then releases the store. Later `append` throws `SessionError` `CLOSED`; reads keep working. */
  close(): void
}

/**
 * A session whose store is remote (a database reached over the network): the same log as
 * `Session`, but `append` resolves once the event is durable in the store (a committed
 * transaction), and `close` resolves once the store's resources are released.
 *
 * `append` checks its arguments, snapshots `data` and numbers the event when it is called, so
 * appends made one after another get consecutive seqs and are written in that order; it rejects
 * (never throws) with the same `SessionError`s as `Session.append`. An event is in `events()`,
 * `read()` and `lastSeq` only once its append has resolved: reads show what is durable. Once a
 * write fails, that append and every later one reject and the session refuses further appends:
 * whether a write whose acknowledgment was lost took effect is known only to the store, so the
 * way on is to open the session again.
 */
export interface AsyncSession {
  append(type: string, data: unknown, options?: AppendOptions): Promise<SessionEvent>
  /** The durable events in seq order, as a frozen array (a fresh view, never the live internal array). */
  events(): readonly SessionEvent[]
  /** Durable events with `seq > afterSeq`, optionally only the given types, in seq order. */
  read(options?: ReadOptions): readonly SessionEvent[]
  /** Seq of the last durable event; 0 when empty. */
  readonly lastSeq: number
  /** Appends accepted and not yet settled (durable or failed). */
  readonly pending: number
  readonly closed: boolean
  /**
   * Idempotent; every call returns the same promise, which never rejects. Later `append`s reject
   * with `CLOSED`; appends accepted before it are still written, and it resolves once they have
   * settled and the store has released the session. Reads keep working.
   */
  close(): Promise<void>
}

/** Either kind of session: what the agent loop records into. */
export type AnySession = Session | AsyncSession

/** Structural logger; the ctx logger of `@deepseek-ai/dsh-context` fits. Must not throw. */
export interface SessionLogger {
  warn(message: string, fields?: Readonly<Record<string, unknown>>): void
}

export interface MemorySessionOptions {
  /** Source of event times (default `() => new Date()`). */
  readonly clock?: () => Date
}

/**
 * `fsync` (default): every append is written and fsynced before it returns; survives power loss.
 * `write`: written to the kernel only; survives a crash or SIGKILL of the process, not power loss.
 * `step` (T59): appends are held in memory and written together, in one write, at each commit point
 * (`commit()`, which the agent loop calls before each model call and at the end of each turn, and
 * `close()`); a crash loses what was appended since the last commit point, never anything before it.
 * `step-fsync`: as `step`, and each commit is fsynced too.
 */
export type JsonlDurability = 'fsync' | 'write' | 'step' | 'step-fsync'

export interface JsonlSessionOptions {
  readonly durability?: JsonlDurability
  readonly clock?: () => Date
  /** Receives the torn-tail repair report on open. */
  readonly logger?: SessionLogger
}

/** What opening a file cut off its torn tail. */
export interface JsonlRepair {
  readonly bytesCut: number
  /** File size after the cut: the end of the last whole line. */
  readonly atOffset: number
}

export interface JsonlSession extends Session {
  /** Absolute path of the session file. */
  readonly path: string
  /** Set when opening cut a torn tail off the file (T31); `undefined` when the file was intact. */
  readonly repaired: JsonlRepair | undefined
  /** Events appended and not yet written (`durability: 'step'` and `'step-fsync'`; always 0 otherwise). */
  readonly uncommitted: number
  commit(): void
}

/** What `readJsonlSession` found in a session file. */
export interface JsonlSessionContents {
  /** Absolute path of the file read. */
  readonly path: string
  /** The header's `createdAt`; `undefined` when the file has no whole header line yet. */
  readonly createdAt: string | undefined
  /** Every event of the file's whole lines, in seq order, deep-frozen. */
  readonly events: readonly SessionEvent[]
  /**
   * Bytes after the last whole line, left as they are: an append in progress, or a torn tail that
   * the next `openJsonlSession` cuts (T31). `undefined` when the file ends with a whole line.
   */
  readonly unreadTail: { readonly bytes: number; readonly atOffset: number } | undefined
}

/** `data` of a `tool/call` event (T28). */
export interface ToolCallEventData {
  turn: number
  step: number
  callId: string
  name: string
  /** The raw JSON string exactly as the model wrote it (for a nested call, as the program passed it). */
  arguments: string
  /**
   * The id the model gave the call (the `id` of its tool-call block in the assistant message), set
   * only when the loop recorded the call under another `callId` because that id was already taken
   * in the session (a model that repeats ids across steps). `callId` pairs the call with its
   * `tool/result` in the log; the model's id is what the provider gets back (`historyFromSession`).
   */
  modelCallId?: string
  /**
   * Set on a nested call (made by a `run_code` program): the outer call's callId. Such a
   * `tool/call` is appended with `sourceEventSeqs: [outerCallSeq]`; it is not part of the model's
   * history.
   */
  parentCallId?: string
  /**
   * How the scheduler ran the call (T21): in the parallel pool, or alone as a barrier. Absent for a
   * call that never started, and in logs written before the loop recorded it.
   */
  mode?: 'parallel' | 'exclusive'
  /**
   * Set when the loop's `repairToolCall` hook mended the call before it ran (issue 24): the name
   * and JSON text that ran and that the provider is given back in the history. `name` and
   * `arguments` above keep what the model wrote, as its assistant message does.
   */
  repaired?: { name: string; arguments: string; by: string }
  /**
   * Set when the model's argument text was not a JSON object and nothing repaired it: the text the
   * provider is given back in its place (`{}`), so a strict provider accepts the history. The
   * call's `tool/result` (INVALID_ARGUMENTS) quotes what the model wrote.
   */
  replayArguments?: string
  /**
   * The key the call's body sees as `exec.idempotencyKey` (T49): `<sessionId>:<callId>`, the same
   * for every attempt. Absent in logs written before the loop recorded it.
   */
  idempotencyKey?: string
}

/**
 * `data` of a `tool/began` event (T50): the body of a call whose tool declares `effects: 'external'`
 * is about to start; appended (durably) right before it, with `{ sourceEventSeqs: [callSeq] }`.
 * A call with a `tool/call` and no `tool/began` never ran its body. One per attempt: a resume
 * that runs the body again records the next `attempt`.
 */
export interface ToolBeganEventData {
  turn: number
  step: number
  callId: string
  name: string
  /** 1 for the first run of the body, then one more per re-run on resume. */
  attempt: number
  /** The tool's `idempotent` declaration when the body began: whether running it again is safe. */
  idempotent: boolean
  idempotencyKey: string
}

/**
 * How long a call took, in milliseconds, measured with `performance.now()`: `queueMs` from being
 * handed to the scheduler to its start (a pool slot or its barrier turn), `runMs` from its start to
 * its result (policy, approval, guards, body), `commitMs` from its result to this `tool/result`
 * being appended (the wait for its turn in model order, and for its message under eager dispatch).
 * The call therefore started `commitMs + runMs` before the event's `time`.
 */
export interface ToolCallRecordedTimings {
  queueMs: number
  runMs: number
  commitMs: number
}

/** `data` of a `tool/result` event (T28, T29); append it with `{ surfaceOp: 'append', sourceEventSeqs: [callSeq] }`. */
export interface ToolResultEventData {
  turn: number
  step: number
  /** `createToolResultMessage({ callId, content, isError })`; its callId pairs it with the call. */
  message: ToolMessage
  error?: { name: string; code: string }
  meta?: JsonValue
  /** Present for a call that started, when the loop recorded it (absent in older logs). */
  timings?: ToolCallRecordedTimings
  /**
   * Present only when a policy rewrote the call's arguments (T36): the JSON text the call ran with.
   * The `tool/call` (and the assistant message) keep the model's own text.
   */
  rewrittenArguments?: string
}

/**
 * `data` of an `approval/request` event: the call's approval is pending (durable approvals). Append
 * it with `{ sourceEventSeqs: [callSeq] }`, after the call's `tool/call` and before any result.
 * `contexts` and `concludesTurn` carry what the step's calls answered before it had deferred, so the
 * step that continues after the answer can deliver them (nothing model-facing may come between a
 * message and the results of its calls).
 */
export interface ApprovalRequestEventData {
  turn: number
  step: number
  callId: string
  name: string
  /** The raw JSON string, as in the call's `tool/call`. */
  arguments: string
  /** The policy's `ask` reason, when it gave one. */
  reason?: string
  contexts?: string[]
  concludesTurn?: boolean
}

/** A person's answer, as recorded: `once`, `session` (with its scope) or `reject` (with feedback). */
export type ApprovalAnswerKind = 'once' | 'session' | 'reject'

/** `data` of an `approval/answer` event; append it with `{ sourceEventSeqs: [requestSeq] }`. */
export interface ApprovalAnswerEventData {
  turn: number
  step: number
  callId: string
  answer: ApprovalAnswerKind
  /** For `session`: what later calls the grant covers (`arguments` when absent). */
  scope?: 'arguments' | 'tool'
  /** For `reject`: what the model is told. */
  feedback?: string
}
