import { statSync } from 'node:fs'
import { openJsonlSession } from '@deepseek-ai/dsh-session'
import { runStep } from '../adapters/run-step.ts'
import { createDshRuntime, expectSums, stepBlocks } from './dsh-runtime.ts'

/**
 * Records one real 100-call step into a new JSONL session at `path` (durability `'write'`) and
 * closes it; answers the file's size before the step (its header), so the step's bytes are the rest.
 */
export async function recordJsonlStep(path: string): Promise<{ readonly sizeBefore: number }> {
  const runtime = createDshRuntime()
  const session = openJsonlSession(path, { durability: 'write' })
  runtime.loop.session = session
  const sizeBefore = statSync(path).size
  const { results } = await runStep({
    ctx: runtime.agent,
    turn: 1,
    step: 1,
    toolCalls: stepBlocks(1, 'add', 100),
    acceptContext: () => {},
  })
  expectSums('a recorded JSONL step', results, 100)
  session.close()
  return { sizeBefore }
}
