import { createHash } from 'node:crypto'
import { stat } from 'node:fs/promises'
import { setTimeout as sleep } from 'node:timers/promises'
import { z } from 'zod'
import { defineTool, type AnyToolDefinition } from '@deepseek-ai/dsh-tools'

/** Called by each body as it starts and as it returns, on the process that runs it (the worker). */
export interface BodyObserver {
  started(callId: string, tool: string): void
  finished(callId: string, tool: string): void
}

const quiet: BodyObserver = { started: () => {}, finished: () => {} }

/**
 * The example's tools, one set of definitions for both sides: the harness registers them for their
 * schemas, validation and result checks; the worker runs their bodies. `digest` is quick;
 * `await_file` is slow on purpose: it waits until a file exists (an artifact another system
 * produces), so a step can be caught with calls still running.
 */
export function exampleTools(observer: BodyObserver = quiet): AnyToolDefinition[] {
  return [
    defineTool({
      name: 'digest',
      description: 'The SHA-256 of a text, in hex.',
      parameters: z.object({ text: z.string() }),
      isConcurrencySafe: () => true,
      execute: ({ text }, exec) => {
        observer.started(exec.callId, 'digest')
        const hex = createHash('sha256').update(text).digest('hex')
        observer.finished(exec.callId, 'digest')
        return hex
      },
    }),
    defineTool({
      name: 'await_file',
      description: 'Wait until a file exists, then return its size in bytes.',
      parameters: z.object({ path: z.string() }),
      isConcurrencySafe: () => true,
      execute: async ({ path }, exec) => {
        observer.started(exec.callId, 'await_file')
        for (;;) {
          const found = await stat(path).catch(() => undefined)
          if (found !== undefined) {
            observer.finished(exec.callId, 'await_file')
            return `${path}: ${found.size} bytes`
          }
          // polling keeps the example free of fs.watch's platform quirks; the signal ends the wait
          await sleep(20, undefined, { signal: exec.signal })
        }
      },
    }),
  ]
}
