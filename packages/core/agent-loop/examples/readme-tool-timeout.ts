import { z } from 'zod'
import { createContext } from '@deepseek-ai/dsh-context'
import { defineTool, installTools } from '@deepseek-ai/dsh-tools'

// Without options every tool that declares no timeoutMs gets five minutes (300 000 ms);
// here a shorter default, a tool that sets its own, and one that opts out with timeoutMs: 0.
const ctx = createContext()
installTools(ctx, { defaultTimeoutMs: 50 })
const hang = () => new Promise<never>(() => {})
const tool = (name: string, timeoutMs?: number) =>
  defineTool({
    name,
    description: `The ${name} tool.`,
    parameters: z.object({}),
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
    execute: hang,
  })
ctx.tools.register(tool('stuck'))
ctx.tools.register(tool('patient', 80))
ctx.tools.register(tool('unbounded', 0))
const stuck = await ctx.tools.execute({ callId: 'a', name: 'stuck', arguments: '{}' })
console.log(stuck.isError && stuck.error.message) // Tool "stuck" timed out after 50 ms.
const patient = await ctx.tools.execute({ callId: 'b', name: 'patient', arguments: '{}' })
console.log(patient.isError && patient.error.message) // Tool "patient" timed out after 80 ms.
const controller = new AbortController()
setTimeout(() => controller.abort(), 200)
const unbounded = await ctx.tools.execute({
  callId: 'c',
  name: 'unbounded',
  arguments: '{}',
  signal: controller.signal,
})
console.log(unbounded.isError && unbounded.error.info?.code) // ABORTED
