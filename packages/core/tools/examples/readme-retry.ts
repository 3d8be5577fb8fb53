import { z } from 'zod'
import { createContext } from '@deepseek-ai/dsh-context'
import { defineTool, installTools, retryable, withRetry, type ToolAttempt } from '@deepseek-ai/dsh-tools'

const ctx = createContext()
installTools(ctx)

// A flaky upstream: two 503s, then an answer.
const answers = [503, 503, 200]
const getRate = defineTool({
  name: 'get_rate',
  description: 'The exchange rate between two currencies.',
  parameters: z.object({ from: z.string(), to: z.string() }),
  idempotent: true, // reading a rate twice is harmless: withRetry refuses tools that do not say so
  timeoutMs: 10_000, // bounds the whole call: every attempt and every wait
  execute: ({ from, to }) => {
    const status = answers.shift()
    if (status !== 200) throw retryable(new Error(`HTTP ${status}`)) // only marked errors are retried
    return `1 ${from} = 0.92 ${to}`
  },
})
ctx.tools.register(withRetry(getRate, { maxAttempts: 4, baseDelayMs: 10, random: () => 0 }))

// Each attempt is an event: a metrics sink or a tracing plugin listens here.
const attempts: string[] = []
ctx.on('tools/attempt', (a: ToolAttempt) =>
  attempts.push(
    `#${a.attempt} ${a.outcome}${a.retryInMs === undefined ? '' : `, retry in ${a.retryInMs} ms`}`,
  ),
)

const result = await ctx.tools.execute({
  callId: 'c1',
  name: 'get_rate',
  arguments: '{"from":"USD","to":"EUR"}',
})
console.log(result.content) // [ { type: 'text', text: '1 USD = 0.92 EUR' } ]
console.log(attempts) // [ '#1 error, retry in 5 ms', '#2 error, retry in 10 ms', '#3 ok' ]
