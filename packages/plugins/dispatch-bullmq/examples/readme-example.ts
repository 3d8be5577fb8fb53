import { z } from 'zod'
import { createContext } from '@deepseek-ai/dsh-context'
import { defineTool, installTools } from '@deepseek-ai/dsh-tools'
import { createRemoteDispatch, createToolWorker } from '@deepseek-ai/dsh-dispatch-bullmq'

const connection = process.env.DSH_REDIS_URL ?? 'redis://127.0.0.1:6379'
const queueName = `readme-${process.pid}`

// One definition, imported by both sides: the caller needs its schema (for the model, validation
// and policy), the worker its body.
let runs = 0
const wordCount = defineTool({
  name: 'word_count',
  description: 'Count the words of a text',
  parameters: z.object({ text: z.string() }),
  output: z.object({ words: z.number(), runs: z.number() }),
  toContent: ({ words }: { words: number }) => `${words} words`,
  execute: ({ text }) => ({ words: text.split(/\s+/).filter(Boolean).length, runs: ++runs }),
})

// On a worker machine (here: the same process, for the example).
const worker = createToolWorker({ connection, queueName, tools: [wordCount] })
await worker.ready

// In the process that talks to the model.
const ctx = createContext()
installTools(ctx)
ctx.tools.register(wordCount)
const dispatch = createRemoteDispatch({ connection, queueName, remote: ['word_count'] })
dispatch.install(ctx)

const result = await ctx.tools.execute({
  callId: 'call_1',
  name: 'word_count',
  arguments: '{"text":"the body ran on a worker"}',
})
console.log(result.content) // [ { type: 'text', text: '6 words' } ]
console.log(dispatch.isRemote('word_count'), dispatch.isRemote('read_file')) // true false

// The same call id again (a retried delivery): answered from the queue, the body does not run twice.
const again = await ctx.tools.execute({
  callId: 'call_1',
  name: 'word_count',
  arguments: '{"text":"the body ran on a worker"}',
})
console.log(again.isError ? again.error.message : again.value) // { words: 6, runs: 1 }

await dispatch.close()
await worker.close()
