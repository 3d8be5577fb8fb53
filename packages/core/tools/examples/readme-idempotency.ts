import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { z } from 'zod'
import { createContext } from '@deepseek-ai/dsh-context'
import { defineTool, installTools } from '@deepseek-ai/dsh-tools'

// A payments API that honours Idempotency-Key: a repeated key is answered, not charged again.
const charged = new Map<string, number>()
let requests = 0
const api = createServer((request, response) => {
  requests += 1
  const key = String(request.headers['idempotency-key'])
  if (!charged.has(key)) charged.set(key, charged.size + 1)
  response.end(`charge #${charged.get(key)}`)
})
await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve))
const url = `http://127.0.0.1:${(api.address() as AddressInfo).port}/charges`

const ctx = createContext()
installTools(ctx)
ctx.tools.register(
  defineTool({
    name: 'charge',
    description: 'Charge a card.',
    parameters: z.object({ cents: z.number().int() }),
    effects: 'external', // the agent loop records tool/began before the body (T50)
    idempotent: true, // the API dedupes by key: running the body again is safe (T51)
    execute: async ({ cents }, exec) => {
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'Idempotency-Key': exec.idempotencyKey }, // `<session id>:<call id>` (T49)
        body: JSON.stringify({ cents }),
        signal: exec.signal,
      })
      return response.text()
    },
  }),
)

// The agent loop passes the session's id as the scope; here a driver passes its own.
const effects = Object.freeze({ idempotencyScope: 'session-7' })
const call = { callId: 'c1', name: 'charge', arguments: '{"cents":500}', effects }
const first = await ctx.tools.execute(call)
const again = await ctx.tools.execute(call) // the same call run again (a resume after a crash)
const other = await ctx.tools.execute({ ...call, callId: 'c2' })
console.log([first, again, other].map((r) => r.content[0])) // [ { type: 'text', text: 'charge #1' }, { type: 'text', text: 'charge #1' }, { type: 'text', text: 'charge #2' } ]
console.log(requests, [...charged.keys()]) // 3 [ 'session-7:c1', 'session-7:c2' ]
api.close()
