import type { Logger } from './logger.ts'

/** Undo a registration. Idempotent: calling it again does nothing. */
export type Disposer = () => void

/**
 * Services reachable as plain properties of a ctx (`ctx.tools`, `ctx.approval`, …). Packages add
 * theirs by declaration merging:
 * @example
 * declare module '@deepseek-ai/dsh-context' {
 *   interface Services { approval?: ApprovalService }
 * }
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface Services {}

/**
 * Typed events, declared by merging. An entry is either an `EmitEvent` (observers) or a
 * `WaterfallEvent` (koa-style listeners that compose into one result).
 * @example
 * declare module '@deepseek-ai/dsh-context' {
 *   interface Events {
 *     'demo/said': EmitEvent<[text: string]>
 *     'demo/transform': WaterfallEvent<[text: string], string>
 *   }
 * }
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface Events {}

export interface EmitEvent<A extends readonly unknown[]> {
  readonly kind: 'emit'
  readonly args: A
}

export interface WaterfallEvent<A extends readonly unknown[], R> {
  readonly kind: 'waterfall'
  readonly args: A
  readonly result: R
}

export type EventName = keyof Events & string

export type EmitEventName = {
  [K in EventName]: Events[K] extends EmitEvent<readonly unknown[]> ? K : never
}[EventName]

export type WaterfallEventName = {
  [K in EventName]: Events[K] extends WaterfallEvent<readonly unknown[], unknown> ? K : never
}[EventName]

export type EventArgs<K extends EventName> = Events[K] extends {
  readonly args: infer A extends readonly unknown[]
}
  ? A
  : never

export type WaterfallResult<K extends WaterfallEventName> =
  Events[K] extends WaterfallEvent<readonly unknown[], infer R> ? R : never

/**
 * Continue to the inner listeners (and finally the fallback). Called with no arguments it forwards
 * the current ones; with arguments it replaces them for the inner part. Calling it twice rejects.
 */
export type Next<A extends readonly unknown[], R> = (...args: A | []) => Promise<R>

export type WaterfallListener<A extends readonly unknown[], R> = (
  ...args: [...A, Next<A, R>]
) => R | Promise<R>

/** Return values are ignored; a returned promise that rejects is reported like a throw. */
export type EmitListener<A extends readonly unknown[]> = (...args: A) => unknown

export type ListenerOf<K extends EventName> =
  Events[K] extends WaterfallEvent<infer A, infer R>
    ? WaterfallListener<A, R>
    : Events[K] extends EmitEvent<infer A>
      ? EmitListener<A>
      : never

export interface ListenerOptions {
  /** Higher runs first (outermost in a waterfall). Ties keep registration order. Default 0. */
  readonly priority?: number
}

/** Identity of one scope in the tree. */
export interface ScopeInfo {
  readonly id: number
  readonly name: string
  readonly parent: ScopeInfo | undefined
  readonly depth: number
  readonly disposed: boolean
}

export type ServiceName = keyof Services & string

/** Called with the service when it becomes available; may return a cleanup run when it goes away. */
export type AvailabilityCallback<K extends ServiceName> = (
  service: NonNullable<Services[K]>,
  ctx: Context,
) => void | Disposer

export interface ContextApi {
  /** This scope's identity. */
  readonly scope: ScopeInfo
  readonly parent: Context | undefined
  readonly root: Context
  readonly logger: Logger

  /**
   * Makes `service` available as `ctx[name]` in this scope and every descendant that does not
   * provide its own. Fails if this scope already provides `name`.
   */
  provide<K extends ServiceName>(name: K, service: NonNullable<Services[K]>): Disposer
  /**
   * Like `provide`, but each scope (this one and every descendant, present and future) gets its own
   * view, built once by `factory` and kept as a plain property: lookups never allocate.
   */
  provideScoped<K extends ServiceName>(name: K, factory: (ctx: Context) => NonNullable<Services[K]>): Disposer
  has(name: ServiceName): boolean
  /** The service, or a `SERVICE_UNAVAILABLE` error naming it and the scope. */
  get<K extends ServiceName>(name: K): NonNullable<Services[K]>
  /** Runs `callback` now if the service is available, else when it is; its cleanup runs when it goes away. */
  whenAvailable<K extends ServiceName>(name: K, callback: AvailabilityCallback<K>): Disposer

  /**
   * Registers a listener. A listener registered on a scope sees only events emitted from that scope
   * or its descendants, and is removed when the scope is disposed.
   */
  on<K extends EventName>(name: K, listener: ListenerOf<K>, options?: ListenerOptions): Disposer
  /** Notifies observers synchronously. Listener failures (throws, rejections) are logged, never thrown here. */
  emit<K extends EmitEventName>(name: K, ...args: EventArgs<K>): void
  /** Composes the listeners koa-style around `fallback` and resolves with the outermost result. */
  waterfall<K extends WaterfallEventName>(
    name: K,
    ...args: [
      ...EventArgs<K>,
      fallback: (...args: EventArgs<K>) => WaterfallResult<K> | Promise<WaterfallResult<K>>,
    ]
  ): Promise<WaterfallResult<K>>
  /** True when any listener would see `name` emitted from this scope (lets hot paths skip work). */
  hasListeners(name: EventName): boolean
  /** How many listeners would see `name` emitted from this scope (lets hot paths pick a shortcut). */
  listenerCount(name: EventName): number

  /** A child scope; its registrations go away when it (or an ancestor) is disposed. */
  createScope(options: { readonly name: string }): Context
  /** Runs `fn` when this scope is disposed (reverse registration order). */
  onDispose(fn: () => void): Disposer
  /** Disposes descendants first, then this scope's registrations. Idempotent. */
  dispose(): void
  /** True when `this` scope is `other` or one of its descendants. */
  isWithin(other: Context | ScopeInfo): boolean
}

/** The ctx object: the API plus every declared service as a plain property. */
export type Context = ContextApi & { readonly [K in ServiceName]: Services[K] }
