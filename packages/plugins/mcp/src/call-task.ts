import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { z } from 'zod/v4'
import type { JsonObject } from '@deepseek-ai/dsh-llm'
import { abortableSleep } from '@deepseek-ai/dsh-tools'
import { describeError } from './describe-error.ts'
import { untilAborted } from './until-aborted.ts'
import type { RunningCall } from './running-calls.ts'
import type { ServerRuntime } from './server-runtime.ts'

const anyAnswer = z.unknown()

/** Bounds on the server's `pollInterval`: a server asking for 0 ms would be polled in a tight loop. */
const MIN_POLL_MS = 50
const MAX_POLL_MS = 5_000
const DEFAULT_POLL_MS = 1_000
/** How long the plugin waits for `tasks/cancel` after an abort (it is sent either way). */
const CANCEL_MS = 5_000

const taskShape = z.looseObject({
  taskId: z.string().min(1),
  status: z.string(),
  statusMessage: z.string().optional(),
  pollInterval: z.number().nonnegative().optional(),
})
const createdAnswer = z.looseObject({ task: taskShape })

type Task = z.infer<typeof taskShape>

/** A task that ended without a result: `failed` or `cancelled` on the server's side. */
export class TaskEndedError extends Error {
  constructor(
    readonly taskId: string,
    readonly status: string,
    statusMessage: string | undefined,
  ) {
    super(`task ${taskId} ended ${status}${statusMessage === undefined ? '' : `: ${statusMessage}`}`)
  }
}

function readTask(raw: unknown, what: 'tools/call' | 'tasks/get'): Task {
  const parsed = what === 'tools/call' ? createdAnswer.safeParse(raw) : taskShape.safeParse(raw)
  if (parsed.success)
    return what === 'tools/call' ? (parsed.data as z.infer<typeof createdAnswer>).task : (parsed.data as Task)
  throw new Error(`the server answered ${what} with something that is not a task`)
}

const pollDelay = (task: Task): number =>
  Math.min(MAX_POLL_MS, Math.max(MIN_POLL_MS, task.pollInterval ?? DEFAULT_POLL_MS))

/**
 * A task-augmented `tools/call` (MCP tasks, 2025-11-25): create the task, poll `tasks/get` at the
 * server's `pollInterval` until it is terminal (or `input_required`, when `tasks/result` delivers the
 * server's queued requests and blocks until the end), then fetch `tasks/result`, the tool's
 * `CallToolResult`. The call's signal aborts every request and the waits; an abort also sends
 * `tasks/cancel`, so the server stops the work (the SDK's own stream only stops polling).
 */
export async function callTask(options: {
  readonly server: ServerRuntime
  readonly client: Client
  readonly tool: string
  readonly args: JsonObject
  readonly signal: AbortSignal
  /** The call on the wire: its task's id is recorded there (a server request naming it is its). */
  readonly call: RunningCall
}): Promise<unknown> {
  const { server, client, tool, args, signal } = options
  const request = { signal, timeout: server.timeoutMs }
  // Sent without the call's signal: an abort while the server creates the task must not lose the
  // task's id (the server may create it anyway, and notifications/cancelled does not stop a task),
  // so the answer is still awaited in the background and the task cancelled once its id is known.
  const creating = client.request(
    // ttl: how long the server keeps the task's result; the call's own timeout bounds the wait
    { method: 'tools/call', params: { name: tool, arguments: args, task: { ttl: server.timeoutMs } } },
    anyAnswer,
    { timeout: server.timeoutMs },
  )
  let task: Task
  try {
    task = readTask(await untilAborted(creating, signal), 'tools/call')
  } catch (error) {
    if (signal.aborted) {
      creating.then(
        (raw) => {
          const answer = createdAnswer.safeParse(raw)
          if (answer.success) cancelTask(server, client, answer.data.task.taskId)
        },
        () => {},
      )
    }
    throw error
  }
  const { taskId } = task
  options.call.taskId = taskId
  try {
    for (;;) {
      if (task.status === 'completed' || task.status === 'input_required') {
        return await client.request({ method: 'tasks/result', params: { taskId } }, anyAnswer, request)
      }
      if (task.status === 'failed') {
        // a tool that answered isError ends its task failed, and tasks/result still has that answer
        const ended = task
        return await client
          .request({ method: 'tasks/result', params: { taskId } }, anyAnswer, request)
          .catch((error: unknown) => {
            if (signal.aborted) throw error
            throw new TaskEndedError(taskId, ended.status, ended.statusMessage ?? describeError(error))
          })
      }
      if (task.status === 'cancelled') throw new TaskEndedError(taskId, task.status, task.statusMessage)
      await abortableSleep(pollDelay(task), signal)
      task = readTask(
        await client.request({ method: 'tasks/get', params: { taskId } }, anyAnswer, request),
        'tasks/get',
      )
    }
  } catch (error) {
    if (signal.aborted) cancelTask(server, client, taskId)
    throw error
  }
}

/** Fire and forget: the call already has its result (ABORTED / TIMEOUT); a failure is only logged. */
function cancelTask(server: ServerRuntime, client: Client, taskId: string): void {
  client
    .request({ method: 'tasks/cancel', params: { taskId } }, anyAnswer, { timeout: CANCEL_MS })
    .catch((error: unknown) => {
      server.ctx.logger.debug(
        `MCP server "${server.name}": tasks/cancel of ${taskId} failed: ${describeError(error)}`,
      )
    })
}
