import { z } from 'zod'
import { createContext } from '@deepseek-ai/dsh-context'
import { createScriptedModel, textBlock, toolCallBlock } from '@deepseek-ai/dsh-llm'
import { createMemorySession } from '@deepseek-ai/dsh-session'
import { defineTool, installTools } from '@deepseek-ai/dsh-tools'
import { createAgent } from '@deepseek-ai/dsh-agent-loop'
import { otelTracing } from '@deepseek-ai/dsh-otel'
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-base'

// An SDK that keeps spans in memory, so we can print them. In production: your exporter (OTLP, …),
// usually registered globally, and then otelTracing(ctx) needs no tracerProvider.
const exporter = new InMemorySpanExporter()
const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })

const ctx = createContext()
installTools(ctx)
const otel = otelTracing(ctx, { tracerProvider, captureArguments: true })

ctx.tools.register(
  defineTool({
    name: 'weather',
    description: 'The weather in a city',
    parameters: z.object({ city: z.string() }),
    isConcurrencySafe: () => true,
    execute: ({ city }) => `${city}: 4°C`,
  }),
)

// Step 1: two calls in parallel; step 2: a call with a wrong argument name; step 3: the answer.
const model = createScriptedModel({
  provider: 'deepseek',
  modelId: 'deepseek-chat',
  turns: [
    [
      toolCallBlock({ id: 'c1', name: 'weather', args: { city: 'Oslo' } }),
      toolCallBlock({ id: 'c2', name: 'weather', args: { city: 'Lima' } }),
    ],
    [toolCallBlock({ id: 'c3', name: 'weather', args: { town: 'Rome' } })],
    [textBlock('Oslo is colder than Lima.')],
  ],
})
const agent = createAgent({ ctx, name: 'helper', model, session: createMemorySession() })
await agent.run('Compare Oslo and Lima', { onEvent: otel.traceAgent(agent).onEvent })

// Print the tree: every span under its parent, in start order.
const spans = exporter.getFinishedSpans()
const startOf = (span: ReadableSpan): number => span.startTime[0] * 1e9 + span.startTime[1]
function label(span: ReadableSpan): string {
  const a = span.attributes
  if (span.name === 'step') return `step ${a['dsh.step']}`
  if (span.name.startsWith('execute_tool'))
    return `${span.name} ${a['gen_ai.tool.call.id']} ${a['error.type'] ?? 'ok'} ${a['gen_ai.tool.call.arguments']}`
  return span.name
}
function print(parent: string | undefined, depth: number): void {
  const children = spans.filter((span) => span.parentSpanContext?.spanId === parent)
  for (const span of children.sort((x, y) => startOf(x) - startOf(y))) {
    console.log(`${'  '.repeat(depth)}${label(span)}`)
    print(span.spanContext().spanId, depth + 1)
  }
}
print(undefined, 0)
//> invoke_agent helper
//>   step 1
//>     chat deepseek-chat
//>     execute_tool weather c1 ok {"city":"Oslo"}
//>     execute_tool weather c2 ok {"city":"Lima"}
//>   step 2
//>     chat deepseek-chat
//>     execute_tool weather c3 INVALID_ARGUMENTS {"town":"Rome"}
//>   step 3
//>     chat deepseek-chat

// Each pipeline stage a call went through is an event on its span.
const c1 = spans.find((span) => span.attributes['gen_ai.tool.call.id'] === 'c1')
console.log(c1?.events.map((event) => event.name).join(' > '))
//> dsh.pre_execute > dsh.guards > dsh.dispatch > dsh.body.start > dsh.body.end > dsh.post_execute > dsh.result

otel() // removes every listener; spans still open would end, marked dsh.unfinished
