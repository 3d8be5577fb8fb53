// A small harness on a real OpenAI-compatible endpoint (DeepSeek by default): the agent loop with
// two read-only tools over one directory, printing each step's tool calls and token usage.
//
//   pnpm build
//   DSH_API_KEY=sk-… DSH_MODEL=deepseek-chat node packages/llm/llm-openai/examples/harness.mjs "What is this project?"
//
// DSH_BASE_URL points it elsewhere (an OpenAI-compatible server, e.g. http://127.0.0.1:8000/v1).
// Ctrl-C aborts the turn, which closes the HTTP stream.

import { readdir, readFile, realpath, stat } from 'node:fs/promises'
import { resolve, sep } from 'node:path'
import { pathToFileURL } from 'node:url'
import { z } from 'zod'
import { createAgent } from '@deepseek-ai/dsh-agent-loop'
import { createContext } from '@deepseek-ai/dsh-context'
import { createOpenAICompatibleModel } from '@deepseek-ai/dsh-llm-openai'
import { createMemorySession, verifyToolPairs } from '@deepseek-ai/dsh-session'
import { defineTool, installTools } from '@deepseek-ai/dsh-tools'

const MAX_FILE_BYTES = 100_000
const MAX_ENTRIES = 200

/** Resolves `path` under `root` after following symlinks; refuses anything that lands outside. */
async function inside(root, path) {
  const full = await realpath(resolve(root, path))
  if (full !== root && !full.startsWith(root + sep))
    throw new Error(`${path} is outside the project directory`)
  return full
}

function usageLine(usage) {
  const cache =
    usage.cacheHitInputTokens === undefined
      ? ''
      : ` (cache hit ${usage.cacheHitInputTokens}, miss ${usage.cacheMissInputTokens ?? '?'})`
  return `${usage.inputTokens} in${cache}, ${usage.outputTokens} out`
}

/**
 * Runs one turn. `env` supplies DSH_BASE_URL / DSH_API_KEY / DSH_MODEL; `print` receives each line.
 * Returns the turn result and whether the session's call/result pairs verify.
 */
export async function runHarness({
  prompt,
  root = process.cwd(),
  env = process.env,
  print = console.log,
  signal,
}) {
  const model = createOpenAICompatibleModel({ env })
  const base = await realpath(root)
  const ctx = createContext()
  installTools(ctx)
  ctx.tools.register(
    defineTool({
      name: 'list_files',
      description:
        'List the entries of a directory of the project ("." is the project root). Directories end with "/".',
      parameters: z.object({ path: z.string() }),
      isConcurrencySafe: () => true,
      presentCall: ({ path }) => `list_files ${path}`,
      execute: async ({ path }) => {
        const entries = await readdir(await inside(base, path), { withFileTypes: true })
        const names = entries.map((e) => (e.isDirectory() ? `${e.name}/` : e.name)).sort()
        const shown = names.slice(0, MAX_ENTRIES).join('\n')
        return names.length > MAX_ENTRIES ? `${shown}\n… ${names.length - MAX_ENTRIES} more` : shown
      },
    }),
  )
  ctx.tools.register(
    defineTool({
      name: 'read_file',
      description: `Read a text file of the project (at most ${MAX_FILE_BYTES} bytes are returned).`,
      parameters: z.object({ path: z.string() }),
      isConcurrencySafe: () => true,
      presentCall: ({ path }) => `read_file ${path}`,
      execute: async ({ path }) => {
        const file = await inside(base, path)
        if (!(await stat(file)).isFile()) throw new Error(`${path} is not a file`)
        const text = (await readFile(file)).subarray(0, MAX_FILE_BYTES).toString('utf8')
        return text
      },
    }),
  )

  const session = createMemorySession()
  const agent = createAgent({
    ctx,
    name: 'harness',
    model,
    session,
    system:
      'You answer questions about the project in the current directory. Look at files with the tools before answering; be brief.',
  })
  print(`${model.provider} ${model.modelId} at ${model.url}`)
  const labels = new Map()
  try {
    const result = await agent.run(prompt, {
      ...(signal === undefined ? {} : { signal }),
      onEvent: (event) => {
        if (event.type === 'model-call-end' && event.outcome === 'ok')
          print(`step ${event.step}: ${event.finishReason}, ${usageLine(event.usage)}`)
        else if (event.type === 'tool-call-queued') labels.set(event.callId, event.label)
        else if (event.type === 'tool-call-end')
          print(
            `  ${labels.get(event.callId)} → ${event.result.isError ? `error ${event.result.error.message}` : 'ok'}`,
          )
      },
    })
    print(`${result.reason} after ${result.steps} step(s): ${result.text}`)
    return { result, pairsOk: verifyToolPairs(session.events()).ok }
  } finally {
    agent.dispose()
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const prompt = process.argv.slice(2).join(' ') || 'What is this project? Answer in two sentences.'
  const controller = new AbortController()
  process.once('SIGINT', () => controller.abort(new Error('interrupted')))
  try {
    await runHarness({ prompt, signal: controller.signal })
  } catch (error) {
    console.error(`${error.name ?? 'Error'}${error.code ? ` ${error.code}` : ''}: ${error.message}`)
    process.exitCode = 1
  }
}
