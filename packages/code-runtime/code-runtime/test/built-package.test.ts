import { execFile } from 'node:child_process'
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build as esbuild } from 'esbuild'
import { build, type Options } from 'tsup'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import configs from '../tsup.config.ts'

const packageDir = fileURLToPath(new URL('..', import.meta.url))
const wasmFile = createRequire(import.meta.url).resolve('@jitl/quickjs-wasmfile-release-sync/wasm')
const swcDir = join(createRequire(import.meta.url).resolve('@swc/wasm-typescript'), '..')
// tsup keeps a package's dependencies external; run from here it cannot see which they are.
const dependencies = Object.keys(
  (JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as { dependencies: object })
    .dependencies,
).filter((name) => !name.startsWith('@deepseek-ai/'))

// What every probe prints: a binding call with logs (TypeScript), a budget overrun inside a
// built-in (the worker must be terminated), then the process must exit by itself with the idle
// pool still warm (no dispose).
const probeBody = (options: string): string => `
const runtime = createQuickJsCodeRuntime(${options})
const ok = await runtime.run({
  program: 'const n: number = await tools.double(21); console.log("got", n); return { n }',
  bindings: { double: (n) => n * 2 },
})
const stuck = await runtime.run({
  program: "const s = 'x'.repeat(1 << 20); for (;;) s.indexOf('y')",
  limits: { timeoutMs: 200 },
})
const after = await runtime.run({ program: 'return 7', language: 'javascript' })
console.log(JSON.stringify([ok, stuck.error.kind, after.value]))
`
const expected = [{ value: { n: 42 }, logs: [{ level: 'log', text: 'got 42' }] }, 'timeout', 7]

let dir = ''
let apps = ''

// pnpm's command shims set NODE_PATH to every package of the workspace's store: the probes must
// resolve packages as an installed application does, without it.
const { NODE_PATH: _storePath, ...env } = process.env

/** Runs a script with Node (in the build directory); resolves with its stdout once it has exited by itself. */
const runNode = (file: string, cwd = dir): Promise<string> =>
  new Promise((resolve, reject) => {
    execFile(process.execPath, [file], { cwd, env, timeout: 30_000 }, (error, stdout, stderr) =>
      error ? reject(new Error(`${file} failed: ${error.message}\n${stderr}`)) : resolve(stdout),
    )
  })

/**
 * Bundles `app.mjs` with esbuild into a folder of its own outside the build directory, next to the
 * worker and the .wasm, with a node_modules that holds only the packages named: what an
 * application ships. Resolves with the folder.
 */
async function bundleApp(name: string, source: string, modules: Record<string, string>): Promise<string> {
  const app = join(apps, name)
  mkdirSync(join(app, 'node_modules', '@swc'), { recursive: true })
  for (const [module, target] of Object.entries(modules))
    symlinkSync(target, join(app, 'node_modules', module), 'dir')
  writeFileSync(join(dir, `${name}.mjs`), source)
  await esbuild({
    entryPoints: [join(dir, `${name}.mjs`)],
    outfile: join(app, 'app.mjs'),
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'silent',
  })
  copyFileSync(join(dir, 'dist/quickjs-worker.mjs'), join(app, 'quickjs-worker.mjs'))
  copyFileSync(wasmFile, join(app, 'quickjs.wasm'))
  return app
}

describe('the built package runs its sandbox worker from dist (ESM, a CommonJS build, a bundled app)', () => {
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'dsh-code-runtime-build-'))
    apps = mkdtempSync(join(tmpdir(), 'dsh-code-runtime-apps-'))
    // The build resolves the engine package (the default .wasm) and swc as an installed package would.
    symlinkSync(join(packageDir, 'node_modules'), join(dir, 'node_modules'), 'dir')
    const outDir = join(dir, 'dist')
    for (const config of configs as Options[]) {
      const isMain = !String(JSON.stringify(config.entry)).includes('quickjs-worker')
      await build({
        ...config,
        config: false,
        silent: true,
        outDir,
        dts: false,
        // The package's real build is ESM; a CommonJS build of the main module must work too.
        ...(isMain
          ? {
              format: ['esm', 'cjs'],
              // The workspace packages are bundled in, so the test does not depend on their builds.
              noExternal: [/^@deepseek-ai\//],
              external: dependencies,
              entry: { index: join(packageDir, 'src/index.ts') },
            }
          : { entry: { 'quickjs-worker': join(packageDir, 'src/quickjs-worker.ts') } }),
        tsconfig: join(packageDir, 'tsconfig.build.json'),
      })
    }
  }, 60_000)

  afterAll(() => {
    if (dir !== '') rmSync(dir, { recursive: true, force: true })
    if (apps !== '') rmSync(apps, { recursive: true, force: true })
  })

  it('T34: ESM: the main module finds quickjs-worker.mjs next to itself; an idle pool lets the process exit', async () => {
    writeFileSync(
      join(dir, 'probe.mjs'),
      `import { createQuickJsCodeRuntime } from './dist/index.js'\n${probeBody('')}`,
    )
    expect(JSON.parse(await runNode('probe.mjs'))).toEqual(expected)
  }, 60_000)

  it('T34: CommonJS: a CJS build of the main module finds the same ES module worker', async () => {
    writeFileSync(
      join(dir, 'probe.cjs'),
      `const { createQuickJsCodeRuntime } = require('./dist/index.cjs')\n;(async () => {${probeBody('')}})()`,
    )
    expect(JSON.parse(await runNode('probe.cjs'))).toEqual(expected)
  }, 60_000)

  it('T34: an app bundled by esbuild runs with the worker copied next to its bundle, the .wasm passed as wasmUrl and only @swc/wasm-typescript installed', async () => {
    const app = await bundleApp(
      'app',
      `import { createQuickJsCodeRuntime } from './dist/index.js'\n${probeBody(
        "{ wasmUrl: new URL('./quickjs.wasm', import.meta.url) }",
      )}`,
      { '@swc/wasm-typescript': swcDir },
    )
    expect(JSON.parse(await runNode('app.mjs', app))).toEqual(expected)
  }, 60_000)

  it('T34: without @swc/wasm-typescript installed, JavaScript programs run and a TypeScript program is refused naming it', async () => {
    const app = await bundleApp(
      'js-only',
      `import { createQuickJsCodeRuntime } from './dist/index.js'
const runtime = createQuickJsCodeRuntime({ wasmUrl: new URL('./quickjs.wasm', import.meta.url) })
const js = await runtime.run({ program: 'return tools.double(21)', language: 'javascript', bindings: { double: (n) => n * 2 } })
const ts = await runtime.run({ program: 'const n: number = 1; return n' }).catch((error) => ({ code: error.code, message: error.message }))
console.log(JSON.stringify([js, ts]))`,
      {},
    )
    const [js, ts] = JSON.parse(await runNode('app.mjs', app)) as [unknown, { code: string; message: string }]
    expect(js).toEqual({ value: 42, logs: [] })
    expect(ts.code).toBe('ENGINE_FAILED')
    expect(ts.message).toContain('@swc/wasm-typescript did not load')
  }, 60_000)
})
