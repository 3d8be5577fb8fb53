import { z } from 'zod'
import type { TimedCase } from '../harness/measure-case.ts'

/** The arguments every trivial call carries, as the model sends them: a raw JSON string. */
export const RAW_ARGS = '{"a":1,"b":2}'

/** The one zod schema every library's trivial tool declares. */
export const addSchema = z.object({ a: z.number(), b: z.number() })

export const addBody = ({ a, b }: { a: number; b: number }): number => a + b

/** The same body as an `async` function, as most real tools are: the pipeline awaits a promise. */
export const addBodyAsync = async ({ a, b }: { a: number; b: number }): Promise<number> => a + b

/**
 * What any tool call must cost at least: parse the raw arguments, validate them with zod, await the
 * body. Every process measures it first and last, and its cases are read as multiples of it.
 */
export function floorCase(id: 'floor' | 'floor.end'): TimedCase<number> {
  return {
    id,
    label:
      id === 'floor'
        ? 'floor: JSON.parse + zod parse + await'
        : 'floor again, last in the process (drift check)',
    callsPerOp: 1,
    op: async () => await addBody(addSchema.parse(JSON.parse(RAW_ARGS))),
    verify: (sum) => {
      if (sum !== 3) throw new Error(`floor: expected 3, got ${sum}`)
    },
  }
}
