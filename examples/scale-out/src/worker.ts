// The worker process: runs the bodies of the example's remote tools, nothing else (no model, no
// session, no policy). Reports on stdout, one JSON line each:
//   { "event": "ready", name }                   it takes jobs
//   { "event": "body-start", callId, tool }      a body started (once per run: count these)
//   { "event": "body-end", callId, tool }        a body returned its value
// Stops (finishing the bodies under way) on SIGTERM or SIGINT.
import { createToolWorker } from '@deepseek-ai/dsh-dispatch-bullmq'
import { exampleTools } from './shared/example-tools.ts'
import { readWorkerOptions, WORKER_USAGE } from './shared/read-worker-options.ts'
import { report } from './shared/report.ts'

let options
try {
  options = readWorkerOptions(process.argv.slice(2), process.env)
} catch (error) {
  console.error(`${error instanceof Error ? error.message : String(error)}\n${WORKER_USAGE}`)
  process.exit(2)
}

const worker = createToolWorker({
  connection: options.redisUrl,
  queueName: options.queueName,
  name: options.name,
  concurrency: options.concurrency,
  tools: exampleTools({
    started: (callId, tool) => report({ event: 'body-start', callId, tool }),
    finished: (callId, tool) => report({ event: 'body-end', callId, tool }),
  }),
})
await worker.ready
report({ event: 'ready', name: options.name })

let stopping = false
const stop = async (): Promise<void> => {
  if (stopping) return
  stopping = true
  await worker.close()
  process.exit(0)
}
process.on('SIGTERM', () => void stop())
process.on('SIGINT', () => void stop())
