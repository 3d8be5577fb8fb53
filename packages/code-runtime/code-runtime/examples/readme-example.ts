import { createQuickJsCodeRuntime } from '@deepseek-ai/dsh-code-runtime'

const runtime = createQuickJsCodeRuntime({ limits: { timeoutMs: 5_000 } })

// Bindings are host async functions; the program (TypeScript, the body of an async function)
// calls them as tools.<name>(args) and may run them concurrently.
const files: Record<string, string> = { 'a.txt': 'alpha', 'b.txt': 'beta' }
const bindings = {
  read_file: async (args: unknown) => files[(args as { path: string }).path] ?? null,
}

const ok = await runtime.run({
  program: `
    const names: string[] = ['a.txt', 'b.txt']
    const texts = await Promise.all(names.map((path) => tools.read_file({ path })))
    console.log('read', texts.length, 'files')
    return texts.join(' + ')`,
  bindings,
})
console.log(ok.value, ok.logs) // alpha + beta [ { level: 'log', text: 'read 2 files' } ]

// Failures are results with a kind, never rejections.
const loop = await runtime.run({ program: 'while (true) {}', limits: { timeoutMs: 50 } })
console.log(loop.error?.kind) // timeout

const escape = await runtime.run({ program: "return typeof process + ' ' + typeof require" })
console.log(escape.value) // undefined undefined

const notJson = await runtime.run({ program: 'return { when: new Date(0) }' })
console.log(notJson.error) // { kind: 'invalid-output', message: 'the returned value is not JSON: $.when is an instance of Date, not plain JSON' }
