import {
  createContext,
  createMemoryLogger,
  type EmitEvent,
  type WaterfallEvent,
} from '@deepseek-ai/dsh-context'

// Packages declare their services and events by merging these interfaces.
declare module '@deepseek-ai/dsh-context' {
  interface Services {
    clock?: { now(): number }
  }
  interface Events {
    'demo/greeted': EmitEvent<[name: string]>
    'demo/render': WaterfallEvent<[text: string], string>
  }
}

const logger = createMemoryLogger()
const ctx = createContext({ logger })

// A service is a plain property, inherited by every child scope.
ctx.provide('clock', { now: () => 42 })
const agent = ctx.createScope({ name: 'agent:reviewer' })
console.log(agent.clock?.now()) // 42

// Waterfall listeners compose koa-style around a fallback.
ctx.on('demo/render', async (text, next) => `<${await next(text.trim())}>`)
agent.on('demo/render', async (_text, next) => (await next()).toUpperCase())
console.log(await agent.waterfall('demo/render', ' hi ', (text) => text)) // <HI>
console.log(await ctx.waterfall('demo/render', ' hi ', (text) => text)) // <hi>

// emit never throws into the emitter: listener failures go to the logger.
agent.on('demo/greeted', () => {
  throw new Error('listener bug')
})
agent.emit('demo/greeted', 'Ada')
console.log(logger.entries.map((entry) => entry.message)) // [ 'listener for "demo/greeted" failed' ]

// Wait for an optional service; the cleanup runs when it goes away.
agent.whenAvailable('clock', () => () => console.log('clock gone')) // (prints when the scope is disposed)
agent.dispose() // clock gone
console.log(agent.scope.disposed) // true
