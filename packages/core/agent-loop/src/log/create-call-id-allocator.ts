import type { ToolCallBlock } from '@deepseek-ai/dsh-llm'
import type { AnySession } from '@deepseek-ai/dsh-session'
import { nestedCallParent } from '@deepseek-ai/dsh-tools'
import type { CallFix } from '../base/context-types.ts'

/**
 * A tool call as the loop records and runs it: `id` unique in the session (the `callId` of its
 * `tool/call`, its `tool/result` and its pipeline input), and, when that is not the id the model
 * wrote, the model's own as `modelCallId` (what the assistant message holds and the provider gets
 * back).
 */
export interface RecordedCallBlock extends ToolCallBlock {
  readonly modelCallId?: string
  /** What the loop did to the call before it ran (T54, T55); `name`/`arguments` stay the model's. */
  readonly fix?: CallFix
}

/**
 * What the caller knows of a step's model ids. `plain`: all of them are known before the first is
 * assigned, no two are equal, and none holds `#` or is a nested id (`<parent>:code:<n>`, see
 * `nestedCallParent`): `isPlainCallId`. Then no id of the step can collide with another
 * one's: a kept id has no `#` and a renamed one (`<id>#<n>`) has, two renamed ones have different
 * bases, and no id is a nested id of another. Only the session's ids need a look (the common case:
 * one lookup per call, none for a fresh session). `any`: every id is checked against the step's too.
 */
export type StepIds = 'plain' | 'any'

/** Whether `id` may be among a `plain` step's ids (`StepIds`): it holds no `#` and is no nested id. */
export function isPlainCallId(id: string): boolean {
  return !id.includes('#') && nestedCallParent(id) === undefined
}

/** A copy of `block` recorded under `callId`, the model's id kept as `modelCallId`. */
function renamed(block: ToolCallBlock, callId: string): RecordedCallBlock {
  return {
    type: 'tool-call',
    id: callId,
    name: block.name,
    arguments: block.arguments,
    modelCallId: block.id,
  }
}

/** Gives the calls of one step their session ids. */
export interface CallIdAllocator {
  /** The call as recorded: the model's block itself when its id is free, else a copy under a free id. */
  assign(block: ToolCallBlock): RecordedCallBlock
  /** The call under the id it was recorded with already (a paused step's first call). */
  recorded(block: ToolCallBlock, callId: string): RecordedCallBlock
}

/** The ids a session's `tool/call` events hold, read incrementally (the log only grows). */
interface SessionIds {
  /** The seq of the last event read. */
  seen: number
  readonly used: Set<string>
  /** Ids of which a recorded id is a nested id (`<parent>:code:<n>`): a call under one would collide. */
  readonly parents: Set<string>
}

const indexes = new WeakMap<object, SessionIds>()

/** Adds `callId` (whose parent, if it is a nested id, is `parent`) to `ids`. */
function take(
  ids: { readonly used: Set<string>; readonly parents: Set<string> },
  callId: string,
  parent: string | undefined,
): void {
  ids.used.add(callId)
  if (parent !== undefined) ids.parents.add(parent)
}

function sessionIds(session: AnySession): SessionIds {
  let ids = indexes.get(session)
  if (ids === undefined) indexes.set(session, (ids = { seen: 0, used: new Set(), parents: new Set() }))
  // Nothing appended since the last read (a fresh session's first step): no read, whose checked
  // options cost more than the rest of the index.
  if (session.lastSeq <= ids.seen) return ids
  // Every event since the last read, its type compared here: a `types` filter costs the session a
  // set of the types per read and a lookup in it per event, where one comparison does (half the
  // read's cost for a step of parallel calls, whose `tool/result`s come between the `tool/call`s).
  // The last event read is the new mark, so the results after the step's last call are not read again.
  const events = session.read({ afterSeq: ids.seen })
  for (let i = 0; i < events.length; i++) {
    const event = events[i]!
    if (event.type !== 'tool/call') continue
    const callId = (event.data as { callId?: unknown } | null)?.callId
    if (typeof callId === 'string') take(ids, callId, nestedCallParent(callId))
  }
  if (events.length !== 0) ids.seen = events[events.length - 1]!.seq
  return ids
}

/**
 * Session-unique call ids for one step (T28–T30). Models repeat ids (some number the calls of every
 * message `call_0`, `call_1`, …), and the session pairs calls and results by id across the whole log,
 * so a repeated id would make a healthy log fail `verifyToolPairs`, and `run_code`'s derived nested
 * ids (`<id>:code:<n>`) would collide too. A call keeps the model's id when no recorded call has it,
 * no recorded id is a nested id of it, and it is not a nested id of a call of this step; otherwise
 * it gets `<id>#<n>`, the smallest n ≥ 2 that is free. The model's id stays on the wire: the
 * assistant message keeps it, and `historyFromSession` gives it back in the tool message.
 *
 * The ids a session holds are indexed once per session and read on incrementally (`read` after
 * the last seq seen), so a step costs what was appended since the last one.
 */
/**
 * The allocator as a class: `assign` runs once per call, and as a method it is made once, not per
 * step (a closure made per step loses its optimized code whenever a full collection finds no step
 * alive: the Code Mode order effect, bench/README).
 */
class StepCallIds implements CallIdAllocator {
  /**
   * This step's ids (recorded or not yet) and the parents they are nested ids of: made on first use,
   * so a step whose ids are plain (which never looks into them) allocates no set for them.
   */
  private stepIds: { readonly used: Set<string>; readonly parents: Set<string> } | undefined = undefined

  private readonly known: SessionIds
  private readonly plain: boolean

  constructor(known: SessionIds, plain: boolean) {
    this.known = known
    this.plain = plain
  }

  private ownIds(): { readonly used: Set<string>; readonly parents: Set<string> } {
    return (this.stepIds ??= { used: new Set(), parents: new Set() })
  }

  /** Whether `callId` (of nested parent `parent`) may be recorded in this step. */
  // The sets that are empty (most steps have no nested ids at all, a fresh session no ids) are not
  // looked into: a lookup hashes the id and probes the table even when the table is empty.
  private free(callId: string, parent: string | undefined): boolean {
    const { known } = this
    const step = this.ownIds()
    if ((known.used.size !== 0 && known.used.has(callId)) || step.used.has(callId)) return false
    // an earlier call's id is a nested id of this one: this call's nested calls would repeat it
    if (known.parents.size !== 0 && known.parents.has(callId)) return false
    if (step.parents.size !== 0 && step.parents.has(callId)) return false
    // a nested id of a call of this step: that call's program may make exactly this call
    return parent === undefined || !step.used.has(parent)
  }

  private as(block: ToolCallBlock, callId: string, parent: string | undefined): RecordedCallBlock {
    take(this.ownIds(), callId, parent)
    return callId === block.id ? block : renamed(block, callId)
  }

  /** Whether `callId` is free in the session (all a plain step's ids need: see `StepIds`). */
  private freeInSession(callId: string): boolean {
    const { used, parents } = this.known
    return (used.size === 0 || !used.has(callId)) && (parents.size === 0 || !parents.has(callId))
  }

  /** `assign` for a step whose ids are plain: its own ids are never looked up nor kept. */
  private assignPlain(block: ToolCallBlock): RecordedCallBlock {
    if (this.freeInSession(block.id)) return block
    for (let n = 2; ; n++) {
      const callId = `${block.id}#${n}`
      if (this.freeInSession(callId)) return renamed(block, callId)
    }
  }

  /** `callId` if free, else `<callId>#<n>` for the smallest n ≥ 2 that is (one parent lookup per try). */
  private assignAny(block: ToolCallBlock): RecordedCallBlock {
    const parent = nestedCallParent(block.id)
    if (this.free(block.id, parent)) return this.as(block, block.id, parent)
    for (let n = 2; ; n++) {
      const callId = `${block.id}#${n}`
      const renamedParent = nestedCallParent(callId)
      if (this.free(callId, renamedParent)) return this.as(block, callId, renamedParent)
    }
  }

  assign(block: ToolCallBlock): RecordedCallBlock {
    return this.plain ? this.assignPlain(block) : this.assignAny(block)
  }

  recorded(block: ToolCallBlock, callId: string): RecordedCallBlock {
    return this.as(block, callId, nestedCallParent(callId))
  }
}

export function createCallIdAllocator(session: AnySession, stepIds: StepIds = 'any'): CallIdAllocator {
  return new StepCallIds(sessionIds(session), stepIds === 'plain')
}
