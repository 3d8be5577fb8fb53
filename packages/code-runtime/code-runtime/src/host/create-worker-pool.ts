import { Worker } from 'node:worker_threads'
import { CodeRuntimeError } from '../errors.ts'
import type { HostMessage, WorkerInit, WorkerMessage } from '../worker-protocol.ts'

/** How long a worker may take to wind down after its run ended before it is terminated. */
export const STOP_GRACE_MS = 100
/** Idle workers kept warm; more concurrent runs than this start (and then end) workers. */
const MAX_IDLE_WORKERS = 2

export interface WorkerPoolOptions {
  /** The worker entry (located lazily, on the first spawn). */
  readonly workerUrl: () => Promise<URL>
  /** The compiled engine every worker instantiates (compiled once, on the first spawn). */
  readonly wasmModule: () => Promise<WebAssembly.Module>
  /** Diagnostics: a worker died underneath a run, or had to be terminated after one. */
  readonly onFault: (error: unknown) => void
  /**
   * Workers alive at once (starting, running, winding down or idle); a run that finds none free
   * waits for one, in arrival order. Infinity: no cap.
   */
  readonly maxWorkers: number
}

/** The host side of one run, while it holds a worker. */
export interface RunListener {
  /** A message of this run (a binding call, a log line, its end). */
  message(message: Exclude<WorkerMessage, { type: 'ready' | 'fault' }>): void
  /** The worker died underneath the run (it exited, crashed or ran out of its JavaScript heap). */
  died(error: unknown, outOfMemory: boolean): void
}

export interface PooledWorker {
  /** Starts run `id` on this worker; its messages go to `listener` until `release`. */
  start(id: number, listener: RunListener, message: Extract<HostMessage, { type: 'run' }>): void
  post(message: HostMessage): void
  /**
   * The host is done with the worker's run. When the worker already reported it done, the worker
   * is idle again at once. Otherwise it is told to stop (by message and by the shared flag its
   * interrupt handler reads) and terminated unless it reports done within `STOP_GRACE_MS`.
   */
  release(finished: boolean): void
}

export interface WorkerPool {
  /**
   * A ready worker whose JavaScript heap is capped at `heapMb`: an idle one, or a new one, or (at
   * `maxWorkers`) the next one freed. `signal` withdraws a request still waiting (it then rejects).
   */
  acquire(heapMb: number, memoryBytes: number, signal?: AbortSignal): Promise<PooledWorker>
  /** Starts a worker and keeps it idle. */
  warm(heapMb: number, memoryBytes: number): Promise<void>
  /** Terminates every worker, busy or idle; acquiring then fails. */
  dispose(): void
}

type State = 'starting' | 'busy' | 'draining' | 'idle' | 'dead'

interface Entry extends PooledWorker {
  readonly worker: Worker
  readonly heapMb: number
  state: State
  runId: number
  listener: RunListener | undefined
  grace: ReturnType<typeof setTimeout> | undefined
  /** Fails the spawn still waiting for `ready`. */
  abandon: (error: unknown) => void
}

interface Waiter {
  readonly heapMb: number
  readonly memoryBytes: number
  resolve(entry: Entry): void
  reject(error: unknown): void
}

/**
 * Sandbox workers, one run at a time each, at most `maxWorkers` alive. Idle workers are
 * unreferenced, so a host with a warm pool can still exit; a worker that dies or is terminated is
 * simply forgotten and the next run starts a new one. Requests wait in arrival order: the first
 * gets an idle worker with its heap cap, else a new worker when there is room, else room made by
 * ending an idle worker with another heap cap.
 */
export function createWorkerPool(options: WorkerPoolOptions): WorkerPool {
  const { maxWorkers } = options
  const live = new Set<Entry>()
  const idle: Entry[] = []
  const waiters: Waiter[] = []
  /** Spawns whose worker is not in `live` yet: they hold a place under `maxWorkers`. */
  let spawning = 0
  let disposed = false

  const report = (error: unknown): void => {
    try {
      options.onFault(error)
    } catch {
      // A diagnostics callback that throws must not take the host down.
    }
  }

  const forget = (entry: Entry): void => {
    if (entry.state === 'starting') entry.abandon(disposedError())
    entry.state = 'dead'
    entry.listener = undefined
    clearTimeout(entry.grace)
    live.delete(entry)
    const at = idle.indexOf(entry)
    if (at !== -1) idle.splice(at, 1)
    pump()
  }

  /** An idle worker with heap cap `heapMb`, now busy; undefined when there is none. */
  const take = (heapMb: number): Entry | undefined => {
    const at = idle.findIndex((entry) => entry.heapMb === heapMb)
    if (at === -1) return undefined
    const entry = idle.splice(at, 1)[0]!
    entry.state = 'busy'
    entry.worker.ref()
    return entry
  }

  /** `spawn`, holding its place under `maxWorkers` until the worker is in `live` (or failed). */
  const spawnCounted = (heapMb: number, memoryBytes: number): Promise<Entry> => {
    spawning++
    let counted = true
    const uncount = (): void => {
      if (!counted) return
      counted = false
      spawning--
    }
    return spawn(heapMb, memoryBytes, uncount).catch((error: unknown) => {
      uncount()
      pump()
      throw engineFailed(error)
    })
  }

  let pumping = false
  /** Serves waiting requests, first come first served, as far as workers and room allow. */
  const pump = (): void => {
    if (pumping || disposed) return
    pumping = true
    try {
      while (waiters.length > 0) {
        const waiter = waiters[0]!
        const entry = take(waiter.heapMb)
        if (entry !== undefined) {
          waiters.shift()
          waiter.resolve(entry)
        } else if (live.size + spawning < maxWorkers) {
          waiters.shift()
          spawnCounted(waiter.heapMb, waiter.memoryBytes).then(waiter.resolve, waiter.reject)
        } else if (idle.length > 0) {
          // every place is taken and the idle workers have another heap cap: end one to make room
          terminate(idle[0]!)
        } else break
      }
    } finally {
      pumping = false
    }
  }

  const terminate = (entry: Entry): void => {
    forget(entry)
    entry.worker.terminate().catch(() => undefined)
  }

  const toIdle = (entry: Entry): void => {
    clearTimeout(entry.grace)
    entry.listener = undefined
    if (disposed) return terminate(entry)
    entry.state = 'idle'
    entry.worker.unref()
    idle.push(entry)
    pump()
    if (idle.length > MAX_IDLE_WORKERS) terminate(idle[0]!)
  }

  const spawn = async (heapMb: number, memoryBytes: number, onLive: () => void): Promise<Entry> => {
    const [url, wasmModule] = await Promise.all([options.workerUrl(), options.wasmModule()])
    if (disposed) throw disposedError()
    const init: WorkerInit = { wasmModule, ended: new Int32Array(new SharedArrayBuffer(4)), memoryBytes }
    const worker = new Worker(url, {
      workerData: init,
      // The native stack as on a main thread (about 1 MB): the engine's C recursion inside some
      // built-ins (JSON.stringify on deep data) runs on it, and overflowing it early is a quick,
      // clean `memory` failure where a deeper stack would let quadratic work run to the deadline.
      resourceLimits: { maxOldGenerationSizeMb: heapMb, stackSizeMb: 1 },
      // The sandbox cannot reach the worker's globals, but nothing there needs the host's environment.
      env: {},
    })
    return new Promise<Entry>((resolve, reject) => {
      const entry: Entry = {
        worker,
        heapMb,
        state: 'starting',
        runId: 0,
        listener: undefined,
        grace: undefined,
        abandon: reject,
        start(id, listener, message) {
          entry.runId = id
          entry.listener = listener
          entry.post(message)
        },
        post(message) {
          if (entry.state === 'busy' || entry.state === 'draining') worker.postMessage(message)
        },
        release(finished) {
          if (entry.state !== 'busy') return
          entry.listener = undefined
          if (finished) return toIdle(entry)
          entry.state = 'draining'
          Atomics.store(init.ended, 0, entry.runId)
          worker.postMessage({ type: 'stop', id: entry.runId } satisfies HostMessage)
          worker.unref()
          entry.grace = setTimeout(() => {
            terminate(entry)
            report(
              new CodeRuntimeError({
                code: 'ENGINE_FAILED',
                message: `The sandbox worker did not stop within ${STOP_GRACE_MS} ms after its run ended (a program busy inside a built-in); it was terminated and will be replaced`,
              }),
            )
          }, STOP_GRACE_MS)
          entry.grace.unref()
        },
      }
      live.add(entry)
      onLive()

      const die = (error: unknown, outOfMemory: boolean): void => {
        if (entry.state === 'dead') return
        const { state, listener } = entry
        // A spawn that never got ready fails with the worker's own error, not as disposed.
        if (state === 'starting') entry.abandon = () => reject(error)
        forget(entry)
        worker.terminate().catch(() => undefined)
        if (state === 'starting') return
        report(error)
        if (state === 'busy') listener?.died(error, outOfMemory)
      }

      const onMessage = (message: WorkerMessage): void => {
        if (message.type === 'ready') {
          if (entry.state !== 'starting') return
          entry.state = 'busy'
          return resolve(entry)
        }
        if (message.id !== entry.runId) return
        if (message.type === 'fault') return report(message.error)
        if (entry.state === 'busy') return entry.listener?.message(message)
        if (entry.state === 'draining' && message.type === 'done') toIdle(entry)
      }
      // A throw in a worker's event handler would be an uncaught exception of the host.
      worker.on('message', (message: WorkerMessage) => {
        try {
          onMessage(message)
        } catch (error) {
          die(error, false)
        }
      })
      worker.on('error', (error: Error & { code?: unknown }) =>
        die(error, error.code === 'ERR_WORKER_OUT_OF_MEMORY'),
      )
      worker.on('messageerror', (error) => die(error, false))
      worker.on('exit', (code) => die(new Error(`The sandbox worker exited with code ${code}`), false))
    })
  }

  const engineFailed = (error: unknown): CodeRuntimeError =>
    CodeRuntimeError.isInstance(error)
      ? error
      : new CodeRuntimeError({
          code: 'ENGINE_FAILED',
          message: 'The code runtime could not start a sandbox worker (the QuickJS WebAssembly engine)',
          cause: error,
        })

  return {
    async acquire(heapMb, memoryBytes, signal) {
      if (disposed) throw disposedError()
      return new Promise<Entry>((resolve, reject) => {
        const withdraw = (): void => {
          const at = waiters.indexOf(waiter)
          if (at === -1) return
          waiters.splice(at, 1)
          reject(withdrawn())
        }
        const waiter: Waiter = {
          heapMb,
          memoryBytes,
          resolve: (entry) => {
            signal?.removeEventListener('abort', withdraw)
            resolve(entry)
          },
          reject: (error) => {
            signal?.removeEventListener('abort', withdraw)
            reject(error)
          },
        }
        if (signal?.aborted) return waiter.reject(withdrawn())
        signal?.addEventListener('abort', withdraw, { once: true })
        waiters.push(waiter)
        pump()
      })
    },
    async warm(heapMb, memoryBytes) {
      if (idle.some((entry) => entry.heapMb === heapMb)) return
      if (live.size + spawning >= maxWorkers) return
      toIdle(await spawnCounted(heapMb, memoryBytes))
    },
    dispose() {
      disposed = true
      for (const waiter of waiters.splice(0)) waiter.reject(disposedError())
      for (const entry of [...live]) terminate(entry)
    },
  }
}

function withdrawn(): CodeRuntimeError {
  return new CodeRuntimeError({ code: 'DISPOSED', message: 'The run ended before a sandbox worker was free' })
}

function disposedError(): CodeRuntimeError {
  return new CodeRuntimeError({ code: 'DISPOSED', message: 'The code runtime was disposed' })
}
