import { createContext, createMemoryLogger, type Context, type MemoryLogger } from '@deepseek-ai/dsh-context'
import { installTools, type InstallToolsOptions } from '@deepseek-ai/dsh-tools'
import type { HrTime } from '@opentelemetry/api'
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-base'
import { otelTracing, type OtelConfig, type OtelTracing } from '@deepseek-ai/dsh-otel'

/** An SDK tracer provider that keeps every finished span in memory. */
export function memoryProvider(): { exporter: InMemorySpanExporter; provider: BasicTracerProvider } {
  const exporter = new InMemorySpanExporter()
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })
  return { exporter, provider }
}

export interface Traced {
  readonly ctx: Context
  readonly logger: MemoryLogger
  readonly exporter: InMemorySpanExporter
  readonly otel: OtelTracing
  spans(): ReadableSpan[]
  /** The finished span named `name` (exactly one). */
  span(name: string): ReadableSpan
}

/** A root ctx with tools installed and the plugin on it, tracing into memory. */
export function traced(
  config: Omit<OtelConfig, 'tracerProvider'> = {},
  tools: InstallToolsOptions = {},
): Traced {
  const logger = createMemoryLogger()
  const ctx = createContext({ logger })
  installTools(ctx, tools)
  const { exporter, provider } = memoryProvider()
  const otel = otelTracing(ctx, { ...config, tracerProvider: provider })
  const spans = () => exporter.getFinishedSpans()
  return {
    ctx,
    logger,
    exporter,
    otel,
    spans,
    span(name) {
      const found = spans().filter((s) => s.name === name)
      if (found.length !== 1) throw new Error(`expected one span "${name}", found ${found.length}`)
      return found[0]!
    },
  }
}

export const nanos = (time: HrTime): bigint => BigInt(time[0]) * 1_000_000_000n + BigInt(time[1])

export const eventNames = (span: ReadableSpan): string[] => span.events.map((e) => e.name)

export const parentId = (span: ReadableSpan): string | undefined => span.parentSpanContext?.spanId

export function childrenOf(spans: readonly ReadableSpan[], parent: ReadableSpan): ReadableSpan[] {
  const id = parent.spanContext().spanId
  return spans
    .filter((s) => parentId(s) === id)
    .sort((a, b) => (nanos(a.startTime) < nanos(b.startTime) ? -1 : 1))
}

/**
 * The span forest as indented lines: `name [call id] {attribute=value …}`, children by start time.
 * `show` picks the attributes printed.
 */
export function tree(spans: readonly ReadableSpan[], show: readonly string[] = []): string[] {
  const ids = new Set(spans.map((s) => s.spanContext().spanId))
  const roots = spans
    .filter((s) => parentId(s) === undefined || !ids.has(parentId(s)!))
    .sort((a, b) => (nanos(a.startTime) < nanos(b.startTime) ? -1 : 1))
  const lines: string[] = []
  const walk = (span: ReadableSpan, depth: number): void => {
    const shown = show
      .filter((key) => span.attributes[key] !== undefined)
      .map((key) => `${key}=${String(span.attributes[key])}`)
    lines.push(`${'  '.repeat(depth)}${span.name}${shown.length > 0 ? ` ${shown.join(' ')}` : ''}`)
    for (const child of childrenOf(spans, span)) walk(child, depth + 1)
  }
  for (const root of roots) walk(root, 0)
  return lines
}

/** A promise with its resolve function, for pauses a test controls. */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void
  const promise = new Promise<T>((r) => {
    resolve = r
  })
  return { promise, resolve }
}
