/**
 * The entry of a sandbox worker thread (built as its own self-contained file, see tsup.config.ts).
 * It runs one program at a time in QuickJS and talks to the host only through messages: the host
 * holds the bindings, the limits' clock and the power to terminate this thread.
 */
import { parentPort, workerData } from 'node:worker_threads'
import { createEngineLoader } from './quickjs/create-engine-loader.ts'
import { runInSandbox, type SandboxHandle } from './quickjs/run-in-sandbox.ts'
import type { HostMessage, SandboxOutcome, WorkerInit, WorkerMessage } from './worker-protocol.ts'

if (parentPort === null) {
  throw new Error(
    'quickjs-worker is the entry of a worker thread started by @deepseek-ai/dsh-code-runtime; it cannot be imported',
  )
}
const port = parentPort
const init = workerData as WorkerInit
const loader = createEngineLoader(init.wasmModule)
const post = (message: WorkerMessage): void => port.postMessage(message)

interface CurrentRun {
  readonly id: number
  handle: SandboxHandle | undefined
  stopped: boolean
}
let current: CurrentRun | undefined

const done = (id: number, outcome: SandboxOutcome): void => {
  if (current?.id === id) current = undefined
  post({ type: 'done', id, outcome })
}

async function start(message: Extract<HostMessage, { type: 'run' }>): Promise<void> {
  const { id, limits } = message
  const run: CurrentRun = { id, handle: undefined, stopped: false }
  current = run
  const fault = (error: unknown): void => {
    try {
      post({ type: 'fault', id, error })
    } catch {
      // Not cloneable (an odd error object): its description is enough for diagnostics.
      post({ type: 'fault', id, error: new Error(String(error)) })
    }
  }
  let engine
  try {
    engine = await loader.acquire(limits.memoryBytes)
  } catch (error) {
    fault(error)
    return done(id, { kind: 'exception', message: `The sandbox engine could not start: ${String(error)}` })
  }
  if (run.stopped) {
    loader.release(engine, true)
    return done(id, { kind: 'abort', message: 'The run was ended by the host' })
  }
  const handle = runInSandbox({
    engine,
    release: (reusable) => loader.release(engine, reusable),
    memoryExhausted: () => loader.exhausted(engine),
    memoryCapped: () => loader.capped(engine),
    source: message.source,
    positions: message.positions,
    names: message.names,
    limits,
    deadline: message.deadline,
    ended: () => run.stopped || Atomics.load(init.ended, 0) === id,
    startCalls: (batch) =>
      post({ type: 'calls', id, first: batch.first, bindings: batch.bindings, texts: batch.texts }),
    log: (level, text, cut) => post({ type: 'log', id, level, text, cut }),
    onEngineFault: fault,
  })
  run.handle = handle
  done(id, await handle.outcome)
}

port.on('message', (message: HostMessage) => {
  switch (message.type) {
    case 'run':
      start(message).catch((error: unknown) => {
        // Nothing in `start` is expected to throw; if it does, the run still gets its one answer.
        post({ type: 'fault', id: message.id, error: new Error(String(error)) })
        done(message.id, { kind: 'exception', message: `The sandbox engine failed: ${String(error)}` })
      })
      return
    case 'answers':
      if (current?.id === message.id) current.handle?.answer(message)
      return
    case 'stop':
      if (current?.id !== message.id) return
      current.stopped = true
      current.handle?.stop()
      return
    default:
      return message satisfies never
  }
})

// Prepare the engine instance the first run will most likely need, then take work.
loader.release(await loader.acquire(init.memoryBytes), true)
post({ type: 'ready' })
