// The cells of the effects crash matrix over PostgreSQL (effects-crash-matrix.test.ts), and what
// every process of it shares: the order tools, the "supplier" the test owns, the agent of a cell.
// Imported by the test and by its child processes (fixtures/effects-caller.ts, effects-worker.ts).
import { appendFileSync, closeSync, openSync } from 'node:fs'
import { createHash } from 'node:crypto'
import { join } from 'node:path'
import { z } from 'zod'
import { createContext, type Context } from '@deepseek-ai/dsh-context'
import {
  createScriptedModel,
  textBlock,
  toolCallBlock,
  type LanguageModel,
  type ToolCallBlock,
} from '@deepseek-ai/dsh-llm'
import type { AnySession, AsyncSession, SessionEvent } from '@deepseek-ai/dsh-session'
import {
  RUN_CODE_TOOL_NAME,
  defineTool,
  installCodeMode,
  installTools,
  type AnyToolDefinition,
} from '@deepseek-ai/dsh-tools'
import type { RemoteDispatch } from '@deepseek-ai/dsh-dispatch-bullmq'
import { createFakeCodeRuntime } from '../../../../../test-support/fake-code-runtime.ts'

/** Where the process that runs the turn is SIGKILLed (the caller's points), or its worker is. */
export type CallerPoint = 'before-call' | 'after-call' | 'in-body' | 'after-body' | 'after-result'
/**
 * The worker's points: between its claim of the job and its started mark (D11), right after the
 * mark (before the body's first instruction), inside the body before or after its effect, and
 * after the body before its reply is stored.
 */
export type WorkerPoint = 'after-claim' | 'after-mark' | 'before-effect' | 'after-effect' | 'after-body'
export type ToolKind = 'idempotent' | 'once'

export interface Cell {
  /** Unique in a run: the session id's tail and the supplier's file names. */
  readonly id: string
  /** Where the session is recorded: PostgreSQL, or a JSONL file in the test's directory. */
  readonly store: 'postgres' | 'jsonl'
  readonly kind: ToolKind
  /** Local bodies run in the caller; remote ones on a BullMQ worker process. */
  readonly bodies: 'local' | 'remote'
  /** `top`: the model calls the tool; `nested`: a run_code program does (T63). */
  readonly shape: 'top' | 'nested'
  /** Who is killed, and where. */
  readonly crash:
    | { readonly who: 'caller'; readonly at: CallerPoint }
    | { readonly who: 'worker'; readonly at: WorkerPoint }
}

/** What a body is told through its arguments (the model's script writes them). */
interface OrderArgs {
  readonly order: string
  readonly cell: string
  /**
   * Where the body (or, for the worker's own points, the worker around it) pauses the first time
   * it runs (a `<cell>.parked` file says it did).
   */
  readonly pause?: WorkerPoint | undefined
}

const WORKER_POINTS = ['after-claim', 'after-mark', 'before-effect', 'after-effect', 'after-body'] as const

export const TOOL_OF: Record<ToolKind, string> = { idempotent: 'place_order', once: 'place_order_once' }

/** The call whose effect a cell watches: the model's own, or the program's first call. */
export const watchedCallId = (cell: Cell): string => (cell.shape === 'nested' ? 'rc:code:0' : 'o1')

/**
 * The "supplier" a test owns, in `dir`: `<cell>.bodies` gets one line per body run (its key),
 * `<cell>.effects` one per effect applied. The idempotent tool's requests are applied once per key
 * (a key file made with `wx`, like an API that honours `Idempotency-Key`); the other tool applies
 * every request it gets.
 */
function applyEffect(dir: string, cell: string, key: string, dedupe: boolean): void {
  if (dedupe) {
    try {
      closeSync(openSync(join(dir, `key-${createHash('sha256').update(key).digest('hex')}`), 'wx'))
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') return
      throw error
    }
  }
  appendFileSync(join(dir, `${cell}.effects`), `${key}\n`)
}

/** True the first time it is asked for `cell` in `dir`, across processes (a `wx` file). */
export function firstPause(dir: string, cell: string): boolean {
  try {
    closeSync(openSync(join(dir, `${cell}.parked`), 'wx'))
    return true
  } catch {
    return false
  }
}

/**
 * The two order tools, the same definitions wherever they run: `place_order` (idempotent) and
 * `place_order_once`, both with external effects. A body pauses where its arguments say, the first
 * time only, saying so through `report` and then waiting for `pause` (which may never end: the
 * process is killed there).
 */
export function orderTools(options: {
  readonly dir: string
  /** False on a worker that must never pause (the one that takes over after a crash). */
  readonly pauses: boolean
  readonly report: (line: { readonly cell: string; readonly at: string }) => void
  readonly pause: (cell: string) => Promise<void>
}): AnyToolDefinition[] {
  const { dir } = options
  return (['idempotent', 'once'] as const).map((kind) =>
    defineTool({
      name: TOOL_OF[kind],
      description: 'Place an order with the supplier.',
      parameters: z.object({
        order: z.string(),
        cell: z.string(),
        pause: z.enum(WORKER_POINTS).optional(),
      }),
      effects: 'external',
      idempotent: kind === 'idempotent',
      execute: async ({ order, cell, pause }: OrderArgs, exec) => {
        appendFileSync(join(dir, `${cell}.bodies`), `${exec.idempotencyKey}\n`)
        // the worker's own points are the worker's (fixtures/effects-worker.ts), not the body's
        const inBody = pause === 'before-effect' || pause === 'after-effect'
        const stop = inBody && options.pauses && firstPause(dir, cell)
        if (stop && pause === 'before-effect') {
          options.report({ cell, at: pause })
          await options.pause(cell)
        }
        applyEffect(dir, cell, exec.idempotencyKey, kind === 'idempotent')
        if (stop && pause === 'after-effect') {
          options.report({ cell, at: pause })
          await options.pause(cell)
        }
        return `order ${order} placed`
      },
    }),
  )
}

/** The pause a cell asks for, if any: inside the body after the effect, or the worker's own point. */
function bodyPause(cell: Cell): OrderArgs['pause'] {
  if (cell.crash.who === 'worker') return cell.crash.at
  return cell.crash.at === 'in-body' ? 'after-effect' : undefined
}

/** The model's one tool call of a cell: the tool, or a program calling it. */
export function firstCall(cell: Cell): ToolCallBlock {
  const pause = bodyPause(cell)
  const args: OrderArgs = { order: 'A-1', cell: cell.id, ...(pause === undefined ? {} : { pause }) }
  const tool = TOOL_OF[cell.kind]
  if (cell.shape === 'top') return toolCallBlock({ id: 'o1', name: tool, args: { ...args } })
  return toolCallBlock({
    id: 'rc',
    name: RUN_CODE_TOOL_NAME,
    args: { code: `return await tools.${tool}(${JSON.stringify(args)})`, description: 'place the order' },
  })
}

export function firstModel(cell: Cell): LanguageModel {
  return createScriptedModel({ turns: [[firstCall(cell)], [textBlock('placed')]] })
}

/** The scope a cell's agent runs in: both tools, Code Mode for a nested cell, remote dispatch for a remote one. */
export function cellContext(
  cell: Cell,
  tools: readonly AnyToolDefinition[],
  dispatch?: RemoteDispatch,
): Context {
  const ctx = createContext()
  installTools(ctx, { defaultPresentation: cell.shape === 'nested' ? 'code' : 'native' })
  for (const tool of tools) ctx.tools.register(tool)
  if (cell.shape === 'nested') {
    ctx.provide('codeRuntime', createFakeCodeRuntime())
    installCodeMode(ctx)
  }
  if (cell.bodies === 'remote') dispatch!.install(ctx)
  return ctx
}

/**
 * A session that stops dead at the caller's point: it says where (`report`) and never settles the
 * append it stopped in, so the turn goes no further until the process is killed. `before-call` and
 * `after-body` stop before the event is written, `after-call` and `after-result` after it is
 * durable. The watched call is the model's own, or (nested) the program's first call.
 */
export function stoppingSession(
  inner: AnySession,
  cell: Cell,
  report: (line: { readonly cell: string; readonly at: string }) => void,
): AsyncSession {
  const at = cell.crash.who === 'caller' ? cell.crash.at : undefined
  const watched = watchedCallId(cell)
  const stop = (point: CallerPoint): Promise<never> => {
    report({ cell: cell.id, at: point })
    return new Promise<never>(() => {})
  }
  const isWatched = (type: string, data: unknown): boolean => {
    const record = data as { callId?: unknown; message?: { content?: { callId?: unknown }[] } }
    if (type === 'tool/call') return record.callId === watched
    if (type === 'tool/result') return record.message?.content?.[0]?.callId === watched
    return false
  }
  return {
    async append(type, data, options): Promise<SessionEvent> {
      const mine = isWatched(type, data)
      if (
        mine &&
        ((type === 'tool/call' && at === 'before-call') || (type === 'tool/result' && at === 'after-body'))
      )
        return stop(at)
      const event = await inner.append(type, data, options)
      if (
        mine &&
        ((type === 'tool/call' && at === 'after-call') || (type === 'tool/result' && at === 'after-result'))
      )
        return stop(at)
      return event
    },
    events: () => inner.events(),
    read: (options) => inner.read(options),
    get lastSeq() {
      return inner.lastSeq
    },
    get pending() {
      return 'pending' in inner ? inner.pending : 0
    },
    get closed() {
      return inner.closed
    },
    close: async () => inner.close(),
  }
}
