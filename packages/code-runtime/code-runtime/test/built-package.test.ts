import { execFile } from 'node:child_process'
import { copyFileSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
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

/** Runs a script with Node in the build directory; resolves with its stdout once it has exited by itself. */
const runNode = (file: string): Promise<string> =>
  new Promise((resolve, reject) => {
    execFile(process.execPath, [file], { cwd: dir, timeout: 30_000 }, (error, stdout, stderr) =>
      error ? reject(new Error(`${file} failed: ${error.message}\n${stderr}`)) : resolve(stdout),
    )
  })

describe('the built package runs its sandbox worker from dist (ESM, a CommonJS build, a bundled app)', () => {
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'dsh-code-runtime-build-'))
    // The build resolves the engine package (the default .wasm) and esbuild as an installed package would.
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

  it('T34: an app bundled by esbuild runs with the worker copied next to its bundle and the .wasm passed as wasmUrl', async () => {
    writeFileSync(
      join(dir, 'app.mjs'),
      `import { createQuickJsCodeRuntime } from './dist/index.js'\n${probeBody(
        "{ wasmUrl: new URL('./quickjs.wasm', import.meta.url) }",
      )}`,
    )
    await esbuild({
      entryPoints: [join(dir, 'app.mjs')],
      outfile: join(dir, 'bundle/app.mjs'),
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      // esbuild runs a native binary: an app keeps it installed (it strips TypeScript at run time).
      external: ['esbuild'],
      logLevel: 'silent',
    })
    copyFileSync(join(dir, 'dist/quickjs-worker.mjs'), join(dir, 'bundle/quickjs-worker.mjs'))
    copyFileSync(wasmFile, join(dir, 'bundle/quickjs.wasm'))
    expect(JSON.parse(await runNode('bundle/app.mjs'))).toEqual(expected)
  }, 60_000)
})
