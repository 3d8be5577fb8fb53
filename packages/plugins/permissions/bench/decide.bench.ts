import { bench, describe } from 'vitest'
import { z } from 'zod'
import { createContext, silentLogger } from '@deepseek-ai/dsh-context'
import { defineTool, installTools } from '@deepseek-ai/dsh-tools'
import { createPermissionEngine, permissions, type PermissionsConfig } from '@deepseek-ai/dsh-permissions'

// What the rules cost per call: the engine alone, and a whole allowed call through the pipeline
// with and without the plugin. Run with `pnpm bench:micro`; compare hz within one run.

const config: PermissionsConfig = {
  workspaceRoot: '/work/app',
  homeDir: '/home/me',
  toolArguments: { read_file: { paths: ['path'] }, bash: { command: 'command' } },
  layers: {
    deployment: [
      { decision: 'deny', tool: '*', paths: ['~/.ssh', '/etc', '**/.env'] },
      { decision: 'deny', tool: 'bash', command: ['rm -rf', 'curl', 'wget', 'sudo'] },
    ],
    project: [
      { decision: 'allow', tool: 'read_file', paths: ['src/**/*.ts', 'docs'] },
      { decision: 'allow', tool: 'bash', command: ['git status', 'git diff', 'npm test'] },
      { decision: 'ask', tool: 'bash', command: 'git push' },
    ],
    session: [{ decision: 'allow', tool: 'bash', command: 'npm run lint' }],
  },
}

const engine = createPermissionEngine(config)
const readCall = { toolName: 'read_file', args: { path: 'src/deep/module/file.ts' } }
const bashCall = { toolName: 'bash', args: { command: 'git status --short && npm test -- --run' } }
const otherCall = { toolName: 'get_weather', args: { city: 'Oslo' } }

describe('engine.decide', () => {
  bench('tool with no declared arguments', () => {
    engine.decide(otherCall)
  })
  bench('one path argument (allowed)', () => {
    engine.decide(readCall)
  })
  bench('a two-command chain (allowed)', () => {
    engine.decide(bashCall)
  })
  bench('explain, one path argument', () => {
    engine.explain(readCall)
  })
  // The slowest shapes validation allows, against the path that makes them backtrack most.
  bench('worst case: globs that make a whole-path regex backtrack, vs a 255-deep path', () => {
    adversarial.decide(adversarialCall)
  })
})

const adversarial = createPermissionEngine({
  workspaceRoot: '/w',
  toolArguments: { read_file: { paths: ['path'] } },
  layers: {
    deployment: [
      { decision: 'deny', tool: '*', paths: ['/**/*a*/**/b', '/**/*a*/*a*/c', '/*a*/*a*/*a*/*a*/**/c'] },
    ],
  },
})
const adversarialCall = {
  toolName: 'read_file',
  args: { path: `/${Array.from({ length: 255 }, () => 'a'.repeat(15)).join('/')}` },
}

const readFile = defineTool({
  name: 'read_file',
  description: 'Read a file',
  parameters: z.object({ path: z.string() }),
  execute: ({ path }) => path.length,
})

function runtime(setup: 'none' | 'empty' | 'rules' | 'rules-no-guard') {
  const ctx = createContext({ logger: silentLogger })
  installTools(ctx)
  ctx.tools.register(readFile)
  if (setup === 'empty') {
    ctx.on('tools/pre-execute', (_call, next) => next())
    ctx.tools.guard(() => undefined)
  }
  if (setup === 'rules') permissions(ctx, config)
  if (setup === 'rules-no-guard') permissions(ctx, { ...config, enforceDenials: false })
  return ctx
}

const bare = runtime('none')
const empty = runtime('empty')
const ruled = runtime('rules')
const listenerOnly = runtime('rules-no-guard')
const raw = JSON.stringify(readCall.args)
let id = 0
const input = () => ({ callId: `c${++id}`, name: 'read_file', arguments: raw })

// Warm up each case longer: the first case of a group otherwise pays for the JIT.
const warm = { warmupTime: 1000, time: 2000 }

describe('one allowed call through ctx.tools.execute', () => {
  bench(
    'no permission rules',
    async () => {
      await bare.tools.execute(input())
    },
    warm,
  )
  bench(
    'an empty pre-execute listener and an empty guard',
    async () => {
      await empty.tools.execute(input())
    },
    warm,
  )
  bench(
    'permissions plugin (listener + guard)',
    async () => {
      await ruled.tools.execute(input())
    },
    warm,
  )
  bench(
    'permissions plugin, enforceDenials: false (listener only)',
    async () => {
      await listenerOnly.tools.execute(input())
    },
    warm,
  )
})
