import { z } from 'zod'
import type { TimedCase } from '../harness/measure-case.ts'

/** The arguments every trivial call carries, as the model sends them: a raw JSON string. */
export const RAW_ARGS = '{"a":1,"b":2}'

/** The one zod schema every library's trivial tool declares. */
export const addSchema = z.object({ a: z.number(), b: z.number() })

/** What the trivial tool returns: an object, as the tools users write do (a bare number is cheaper to render). */
export interface Sum {
  readonly sum: number
}

/**
 * The trivial tool's body in the shape users write: `async`, returning an object. Every library's
 * default case runs this one body, so their figures compare equal work.
 */
export const addBody = async ({ a, b }: { a: number; b: number }): Promise<Sum> => ({ sum: a + b })

/** The cheapest shape a tool can have (a plain function returning a number): one row, for reference. */
export const addNumberBody = ({ a, b }: { a: number; b: number }): number => a + b

/** Throws unless `value` is the trivial tool's answer, `{ sum: 3 }`. */
export function expectSum(where: string, value: unknown): void {
  if (typeof value !== 'object' || value === null || (value as Partial<Sum>).sum !== 3) {
    throw new Error(`${where}: expected { sum: 3 }, got ${JSON.stringify(value)}`)
  }
}

/**
 * What any tool call must cost at least: parse the raw arguments, validate them with zod, await the
 * body. Every process measures it first and last, and its cases are read as multiples of it.
 */
export function floorCase(id: 'floor' | 'floor.end'): TimedCase<Sum> {
  return {
    id,
    label:
      id === 'floor'
        ? 'floor: JSON.parse + zod parse + await'
        : 'floor again, last in the process (drift check)',
    callsPerOp: 1,
    op: async () => await addBody(addSchema.parse(JSON.parse(RAW_ARGS))),
    verify: (sum) => expectSum('floor', sum),
  }
}
