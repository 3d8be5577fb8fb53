// The scratch project scripts/check-packed.mjs builds for @deepseek-ai/dsh-otel: the packed plugin
// (and the packed packages it needs) installed with npm beside zod, @opentelemetry/api and the
// OpenTelemetry SDK, one smoke body run as ESM and as CommonJS (trace an agent turn with a tool call
// into the SDK's in-memory exporter, report the span tree), and a TypeScript consumer (.mts and
// .cts) type-checked under module node16. The OpenTelemetry packages come from the registry, so
// this project is kept apart from the others, whose checks say that only zod and ajv do.

const body = `
const exporter = new InMemorySpanExporter()
const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })
const ctx = createContext()
installTools(ctx)
const otel = otelTracing(ctx, { tracerProvider, captureArguments: true })
ctx.tools.register(
  defineTool({
    name: 'add',
    description: 'Add two numbers',
    parameters: z.object({ a: z.number(), b: z.number() }),
    execute: ({ a, b }) => a + b,
  }),
)
const model = createScriptedModel({
  turns: [[toolCallBlock({ id: 'c1', name: 'add', args: { a: 2, b: 3 } })], [textBlock('Done.')]],
})
const agent = createAgent({ ctx, name: 'smoke', model, session: createMemorySession() })
const turn = await agent.run('Add 2 and 3.', { onEvent: otel.traceAgent(agent).onEvent })
const unknown = await ctx.tools.execute({ callId: 'c2', name: 'nope', arguments: {} })
otel()
const spans = exporter.getFinishedSpans()
const byId = new Map(spans.map((span) => [span.spanContext().spanId, span]))
const path = (span) => {
  const names = []
  for (let s = span; s !== undefined; s = byId.get(s.parentSpanContext?.spanId)) names.unshift(s.name)
  return names.join(' > ')
}
const add = spans.find((span) => span.attributes['gen_ai.tool.call.id'] === 'c1')
const failed = spans.find((span) => span.attributes['gen_ai.tool.call.id'] === 'c2')
console.log(
  JSON.stringify({
    text: turn.text,
    paths: spans.map(path).sort(),
    add: {
      operation: add.attributes['gen_ai.operation.name'],
      arguments: add.attributes['gen_ai.tool.call.arguments'],
      events: add.events.map((event) => event.name),
    },
    unknown: { code: unknown.error.info.code, errorType: failed.attributes['error.type'], status: failed.status.code },
    listening: ctx.listenerCount('tools/pre-execute'),
  }),
)
`

const imports = (form) =>
  [
    ['{ z }', 'zod'],
    ['{ createContext }', '@deepseek-ai/dsh-context'],
    ['{ createScriptedModel, textBlock, toolCallBlock }', '@deepseek-ai/dsh-llm'],
    ['{ createMemorySession }', '@deepseek-ai/dsh-session'],
    ['{ defineTool, installTools }', '@deepseek-ai/dsh-tools'],
    ['{ createAgent }', '@deepseek-ai/dsh-agent-loop'],
    ['{ otelTracing }', '@deepseek-ai/dsh-otel'],
    ['{ BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor }', '@opentelemetry/sdk-trace-base'],
  ]
    .map(([names, from]) =>
      form === 'esm' ? `import ${names} from '${from}'` : `const ${names} = require('${from}')`,
    )
    .join('\n')

const esm = `${imports('esm')}
;(async () => {
${body}
})()
`

const cjs = `${imports('cjs')}
;(async () => {
${body}
})()
`

// Type-level use of the public API, as ESM and as CommonJS TypeScript.
const typed = `import { createContext } from '@deepseek-ai/dsh-context'
import { installTools } from '@deepseek-ai/dsh-tools'
import type { Agent } from '@deepseek-ai/dsh-agent-loop'
import { otelTracing, OtelAttributes, type AgentTracer, type OtelConfig } from '@deepseek-ai/dsh-otel'
import type { TracerProvider } from '@opentelemetry/api'

export function setUp(tracerProvider: TracerProvider, agent: Agent): { tracer: AgentTracer; key: string } {
  const ctx = createContext()
  installTools(ctx)
  const config: OtelConfig = { tracerProvider, captureResults: true, maxCaptureBytes: 1024 }
  const otel = otelTracing(ctx, config)
  const tracing: boolean = otel.tracing
  void tracing
  return { tracer: otel.traceAgent(agent), key: OtelAttributes.GEN_AI_TOOL_CALL_ID }
}
`

export const otelFixture = {
  /** The packed packages the project installs (the plugin and what it imports). */
  packages: [
    '@deepseek-ai/dsh-otel',
    '@deepseek-ai/dsh-agent-loop',
    '@deepseek-ai/dsh-tools',
    '@deepseek-ai/dsh-context',
    '@deepseek-ai/dsh-llm',
    '@deepseek-ai/dsh-session',
  ],
  /** From the registry: the API in the SDK's peer range, and the SDK the smoke script records with. */
  registry: { '@opentelemetry/api': '~1.9.1', '@opentelemetry/sdk-trace-base': '^2.12.1' },
  files: { 'smoke.mjs': esm, 'smoke.cjs': cjs, 'consumer.mts': typed, 'consumer.cts': typed },
  expectedReport: {
    text: 'Done.',
    paths: [
      'execute_tool nope',
      'invoke_agent smoke',
      'invoke_agent smoke > step',
      'invoke_agent smoke > step',
      'invoke_agent smoke > step > chat scripted-model',
      'invoke_agent smoke > step > chat scripted-model',
      'invoke_agent smoke > step > execute_tool add',
    ],
    add: {
      operation: 'execute_tool',
      arguments: '{"a":2,"b":3}',
      events: [
        'dsh.pre_execute',
        'dsh.guards',
        'dsh.dispatch',
        'dsh.body.start',
        'dsh.body.end',
        'dsh.post_execute',
        'dsh.result',
      ],
    },
    unknown: { code: 'UNKNOWN_TOOL', errorType: 'UNKNOWN_TOOL', status: 2 },
    listening: 0,
  },
}
