import { z } from 'zod'
import { defineTool } from '@deepseek-ai/dsh-tools'

/** `check_service`: a tool that always fails, to show what a failing call looks like. Parallel-safe. */
export function checkServiceTool() {
  return defineTool({
    // the limits below (string lengths) are outside strict function calling's subset
    strict: false,
    name: 'check_service',
    description: 'Check whether a service is up. In this demo it always fails (there is no network).',
    parameters: z.object({ name: z.string().min(1).max(60) }),
    isConcurrencySafe: () => true,
    presentCall: ({ name }) => `check_service ${name}`,
    execute: ({ name }) => {
      throw new Error(`${name} did not answer: connection refused (this demo tool always fails)`)
    },
  })
}
