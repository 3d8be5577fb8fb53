// Checks what npm users get: packs every package (`pnpm pack`, which runs the prepack build check),
// inspects each tarball, installs the tarballs into scratch projects in a temp directory and runs a
// smoke script in each: an ESM project, the same project from CommonJS, esbuild bundles of both
// (run from a directory with no node_modules), a TypeScript consumer under `module: node16` and
// `nodenext`, a project on zod 3.25 (the `zod/v4` entry), and the timeline's own project (its
// `dsh-timeline` command as npm installed it). Run after `pnpm build`.
// Only zod, ajv and their dependencies come from the npm registry (`--prefer-offline`: the npm cache
// serves them when it can), except in the plugins' own projects: the MCP plugin's also installs the
// MCP SDK, the BullMQ plugin's bullmq and ioredis, the OpenTelemetry plugin's @opentelemetry/api and
// the SDK, the AI SDK bridge's @ai-sdk/provider and @ai-sdk/provider-utils, and the PostgreSQL store's pg (it runs against a real server: DSH_TEST_POSTGRES_URL, or a
// throwaway one started here); the packages under test are always the local tarballs.
import { execFileSync } from 'node:child_process'
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Script } from 'node:vm'
import { fixtures } from './packed-fixtures.mjs'
import { mcpFixture } from './packed-mcp-fixture.mjs'
import { timelineFixture } from './packed-timeline-fixture.mjs'
import { bullmqFixture } from './packed-bullmq-fixture.mjs'
import { postgresFixture } from './packed-postgres-fixture.mjs'
import { URL_VARIABLE, startPostgres } from './postgres-server.mjs'
import { otelFixture } from './packed-otel-fixture.mjs'
import { aiSdkFixture } from './packed-ai-sdk-fixture.mjs'
import { packSuite } from './pack-suite.mjs'
import { lintTarball, loadLinters } from './packed-lint.mjs'
import { checkReadmeInstall } from './packed-readme-install.mjs'

const repo = join(dirname(fileURLToPath(import.meta.url)), '..')
const repoRequire = createRequire(join(repo, 'package.json'))
/** Packed and inspected like the others, but installed only into their own project (steps 4–6). */
const ownProject = new Set([
  '@deepseek-ai/dsh-llm-ai-sdk',
  '@deepseek-ai/dsh-mcp',
  '@deepseek-ai/dsh-dispatch-bullmq',
  '@deepseek-ai/dsh-session-postgres',
  '@deepseek-ai/dsh-otel',
  '@deepseek-ai/dsh-timeline',
])
/** A zod 4 minor other than the workspace's: the consumer's zod must be the only one installed. */
const CONSUMER_ZOD = '~4.0.0'
const ZOD3 = '3.25.76'
const keep = process.argv.includes('--keep')
/**
 * `--runtime-only`: what can differ between Node versions — pack, install, the ESM and CommonJS smoke
 * scripts and a program in the code runtime (worker threads, WebAssembly). CI runs the whole check
 * once, on the machine's Node, and this part on each other Node version it tests: publint, attw,
 * tsc, esbuild and the installs of the plugins' projects give the same answer on every Node.
 */
const runtimeOnly = process.argv.includes('--runtime-only')

const work = mkdtempSync(join(tmpdir(), 'dsh-packed-'))
const started = performance.now()
const step = (label) => console.log(`[${((performance.now() - started) / 1000).toFixed(1)}s] ${label}`)
const problems = []
const check = (ok, message) => {
  if (!ok) problems.push(message)
}
const run = (command, args, cwd, options = {}) =>
  execFileSync(command, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], ...options })

function filesUnder(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesUnder(join(dir, entry.name)) : [join(dir, entry.name)],
  )
}
const bytesUnder = (dir) => filesUnder(dir).reduce((sum, file) => sum + statSync(file).size, 0)
const kb = (bytes) => `${(bytes / 1024).toFixed(1)} kB`

/** Every string target of an `exports` map, whatever the nesting of conditions. */
function exportTargets(value) {
  if (typeof value === 'string') return [value]
  if (typeof value !== 'object' || value === null) return []
  return Object.values(value).flatMap(exportTargets)
}

function npmInstall(project, dependencies) {
  mkdirSync(project, { recursive: true })
  writeFileSync(
    join(project, 'package.json'),
    JSON.stringify({ name: 'consumer', private: true, type: 'module', dependencies }, null, 2),
  )
  run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'], project)
}

function installedCopies(project, name) {
  return filesUnder(join(project, 'node_modules'))
    .filter((file) => file.endsWith(`node_modules/${name}/package.json`))
    .map((file) => ({ path: dirname(file), version: JSON.parse(readFileSync(file, 'utf8')).version }))
}

function expectOutput(label, actual, expected) {
  let parsed
  try {
    parsed = JSON.parse(actual)
  } catch {
    problems.push(`${label}: printed no JSON report:\n${actual}`)
    return
  }
  const a = JSON.stringify(parsed)
  const e = JSON.stringify(expected)
  check(a === e, `${label}: printed\n  ${a}\nexpected\n  ${e}`)
}

try {
  // 1. Pack and inspect.
  step(`packing (packed-artifact check on Node ${process.version})`)
  const tarballs = {}
  const sizes = []
  const license = readFileSync(join(repo, 'LICENSE'), 'utf8')
  const tarballDir = join(work, 'tarballs')
  const packs = await packSuite({ repo, destination: tarballDir })
  for (const { dir, tarball } of packs) {
    const manifest = JSON.parse(readFileSync(join(repo, dir, 'package.json'), 'utf8'))
    tarballs[manifest.name] = tarball
    const unpacked = join(work, 'unpacked', manifest.name)
    mkdirSync(unpacked, { recursive: true })
    run('tar', ['-xzf', tarball, '-C', unpacked])
    const root = join(unpacked, 'package')
    const files = filesUnder(root).map((file) => relative(root, file))
    const packed = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
    const text = JSON.stringify(packed)
    const name = manifest.name
    check(files.includes('LICENSE'), `${name}: no LICENSE in the tarball`)
    check(
      !files.includes('LICENSE') || readFileSync(join(root, 'LICENSE'), 'utf8') === license,
      `${name}: LICENSE differs from the repository's`,
    )
    check(files.includes('README.md'), `${name}: no README.md in the tarball`)
    check(!files.some((f) => f.endsWith('.map')), `${name}: ships source maps`)
    check(!files.some((f) => f.startsWith('src/')), `${name}: ships src/`)
    check(!text.includes('dsh-source'), `${name}: the published exports still name the dsh-source condition`)
    check(!text.includes('workspace:'), `${name}: a workspace: range reached the published manifest`)
    check(packed.license === 'MIT', `${name}: license is not MIT`)
    for (const field of ['repository', 'homepage', 'bugs']) check(packed[field], `${name}: no ${field}`)
    for (const target of exportTargets(packed.exports)) {
      check(
        files.includes(target.replace(/^\.\//, '')),
        `${name}: exports name ${target}, not in the tarball`,
      )
    }
    sizes.push({ name, tarball: statSync(tarball).size, unpacked: bytesUnder(root), files: files.length })
  }
  console.log('tarballs:')
  for (const s of sizes)
    console.log(`  ${s.name}: ${kb(s.tarball)} packed, ${kb(s.unpacked)} unpacked, ${s.files} files`)

  if (!runtimeOnly) {
    step('publint and attw on every tarball')
    const linters = await loadLinters(repo)
    for (const { name, tarball } of packs) problems.push(...(await lintTarball(linters, { name, tarball })))

    // .ci/run has just run the README's install block as written in a fresh clone, with npm and
    // pnpm (scripts/newcomer-ci.mjs), and says so, so that CI does not run it twice.
    if (process.env.DSH_README_INSTALL_CHECKED === '1') step('the README install: checked by .ci/run already')
    else {
      step('the README install: use-packed, then npm and pnpm in scratch projects')
      checkReadmeInstall({ repo, work, tarballDir, run, check, log: (line) => console.log(line) })
    }
  }

  const allLocal = Object.fromEntries(Object.entries(tarballs).map(([name, file]) => [name, `file:${file}`]))
  const local = Object.fromEntries(Object.entries(allLocal).filter(([name]) => !ownProject.has(name)))
  const workspaceZod = JSON.parse(
    readFileSync(join(repo, 'packages/core/tools/node_modules/zod/package.json'), 'utf8'),
  )

  step('installing the consumer project')
  // 2. One consumer project: ESM, CommonJS, TypeScript; a zod 4 minor other than the workspace's.
  const project = join(work, 'consumer')
  npmInstall(project, { ...local, zod: CONSUMER_ZOD, ajv: '^8.17.0' })
  const zods = installedCopies(project, 'zod')
  check(
    zods.length === 1,
    `consumer: expected exactly one zod (one type tree), found ${zods.map((z) => `${z.version} at ${z.path}`).join(', ')}`,
  )
  check(
    zods[0]?.version.split('.')[1] !== workspaceZod.version.split('.')[1],
    `consumer: zod ${zods[0]?.version} is the workspace's minor; pick another to prove the peer range`,
  )
  console.log(
    `consumer install: ${kb(bytesUnder(join(project, 'node_modules')))} in node_modules (zod ${zods[0]?.version}, ajv)`,
  )

  for (const [file, source] of Object.entries(fixtures.consumer)) writeFileSync(join(project, file), source)
  step('running ESM and CommonJS smoke scripts')
  const tools = join(project, 'node_modules/@deepseek-ai/dsh-tools/dist')
  const expected = (location) => ({ ...fixtures.expectedReport, location })
  expectOutput('ESM', run(process.execPath, ['smoke.mjs'], project), expected(join(tools, 'index.js')))
  expectOutput('CommonJS', run(process.execPath, ['smoke.cjs'], project), expected(join(tools, 'index.cjs')))

  step('running a TypeScript program in the code runtime (ESM and CommonJS)')
  // Types are stripped in place (swc, WebAssembly): the error names the program's own line 3.
  const codeProgram = 'const n: number = 1\\nconst s: string = String(n)\\nthrow new Error("at " + s)'
  const codeRun = (load) => `${load}
const runtime = createQuickJsCodeRuntime()
runtime.run({ program: '${codeProgram}' }).then((result) => {
  runtime.dispose()
  console.log(JSON.stringify(result))
})
`
  writeFileSync(
    join(project, 'code.mjs'),
    codeRun("import { createQuickJsCodeRuntime } from '@deepseek-ai/dsh-code-runtime'"),
  )
  writeFileSync(
    join(project, 'code.cjs'),
    codeRun("const { createQuickJsCodeRuntime } = require('@deepseek-ai/dsh-code-runtime')"),
  )
  const codeExpected = { logs: [], error: { kind: 'exception', message: 'Error: at 1 (line 3, column 16)' } }
  expectOutput('code runtime ESM', run(process.execPath, ['code.mjs'], project), codeExpected)
  expectOutput('code runtime CommonJS', run(process.execPath, ['code.cjs'], project), codeExpected)
  check(
    installedCopies(project, 'esbuild').length === 0,
    'consumer: esbuild was installed (the code runtime must need no native binary)',
  )
  check(
    installedCopies(project, '@swc/wasm-typescript').length === 1,
    'consumer: expected one @swc/wasm-typescript',
  )

  if (!runtimeOnly) {
    step('bundling with esbuild')
    // Bundles run from a directory with no node_modules: everything they need is inside them.
    const esbuild = repoRequire('esbuild')
    const bundles = join(work, 'bundles')
    mkdirSync(bundles)
    const bundleCases = [
      { entry: 'smoke.mjs', format: 'esm', out: 'esm-bundle.mjs' },
      { entry: 'smoke.cjs', format: 'cjs', out: 'cjs-bundle.cjs' },
      // The common serverless set-up: ESM source, one CommonJS file out.
      { entry: 'smoke.mjs', format: 'cjs', out: 'esm-to-cjs-bundle.cjs' },
    ]
    for (const { entry, format, out } of bundleCases) {
      const result = await esbuild.build({
        absWorkingDir: project,
        entryPoints: [entry],
        bundle: true,
        platform: 'node',
        target: 'node20',
        format,
        outfile: join(project, 'out', out),
        logLevel: 'silent',
      })
      const warnings = result.warnings.map((w) => w.id || w.text)
      const allowed = format === 'cjs' && entry.endsWith('.mjs') ? ['empty-import-meta'] : []
      check(
        warnings.every((w) => allowed.includes(w)),
        `esbuild ${out}: unexpected warnings ${warnings.join(', ')}`,
      )
      cpSync(join(project, 'out', out), join(bundles, out))
      expectOutput(`esbuild ${out}`, run(process.execPath, [out], bundles), expected(join(bundles, out)))
    }

    step('type-checking consumers')
    // TypeScript consumers: an ESM and a CommonJS file, under node16 and nodenext. The published
    // declarations (and zod's) are checked once, under node16; nodenext checks resolution and use.
    const tsc = join(repo, 'node_modules/typescript/bin/tsc')
    for (const module of ['node16', 'nodenext']) {
      const config = `tsconfig.${module}.json`
      writeFileSync(
        join(project, config),
        JSON.stringify({
          compilerOptions: {
            module,
            moduleResolution: module,
            target: 'es2022',
            strict: true,
            exactOptionalPropertyTypes: true,
            noUncheckedIndexedAccess: true,
            noEmit: true,
            skipLibCheck: module === 'nodenext',
            types: [],
          },
          files: ['consumer.mts', 'consumer.cts'],
        }),
      )
      try {
        run(process.execPath, [tsc, '-p', config], project)
      } catch (error) {
        problems.push(`tsc (module ${module}) failed:\n${error.stdout}${error.stderr}`)
      }
    }

    step('installing the zod 3.25 project')
    // 3. zod 3.25: schemas from its `zod/v4` entry work; a classic zod 3 schema gets a clear error.
    const zod3 = join(work, 'zod3')
    // Only the packages the zod 3.25 smoke script imports: the sandbox's engine and its type
    // stripper would only slow this install down.
    const core = Object.fromEntries(
      Object.entries(local).filter(([name]) => !/dsh-(code-runtime|llm-openai)$/.test(name)),
    )
    npmInstall(zod3, { ...core, zod: ZOD3 })
    writeFileSync(join(zod3, 'smoke.mjs'), fixtures.zod3Smoke)
    expectOutput('zod 3.25', run(process.execPath, ['smoke.mjs'], zod3), fixtures.expectedZod3Report)
    check(installedCopies(zod3, 'ajv').length === 0, 'zod3: ajv was installed although nobody asked for it')
    console.log(`zod 3.25 install without ajv: ${kb(bytesUnder(join(zod3, 'node_modules')))} in node_modules`)

    step('installing the MCP project')
    // 4. The MCP plugin, with the MCP SDK from the registry: a real stdio server, from ESM and CommonJS.
    const mcp = join(work, 'mcp')
    npmInstall(mcp, {
      ...Object.fromEntries(mcpFixture.packages.map((name) => [name, allLocal[name]])),
      zod: CONSUMER_ZOD,
      ajv: '^8.17.0',
    })
    check(installedCopies(mcp, 'zod').length === 1, 'mcp: expected exactly one zod')
    for (const [file, source] of Object.entries(mcpFixture.files)) writeFileSync(join(mcp, file), source)
    expectOutput('mcp ESM', run(process.execPath, ['smoke.mjs'], mcp), mcpFixture.expectedReport)
    expectOutput('mcp CommonJS', run(process.execPath, ['smoke.cjs'], mcp), mcpFixture.expectedReport)
    console.log(`mcp install: ${kb(bytesUnder(join(mcp, 'node_modules')))} in node_modules`)

    step('installing the timeline project')
    // 5. The timeline: its command as npm installed it (bin), and the library from ESM and CommonJS.
    const timeline = join(work, 'timeline')
    npmInstall(timeline, Object.fromEntries(timelineFixture.packages.map((name) => [name, allLocal[name]])))
    for (const [file, source] of Object.entries(timelineFixture.files))
      writeFileSync(join(timeline, file), source)
    run(process.execPath, ['record.mjs'], timeline)
    const page = run(join(timeline, 'node_modules/.bin/dsh-timeline'), ['session.jsonl'], timeline)
    const blocks = [...page.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)]
    check(
      page.startsWith('<!doctype html>') && blocks.length === 2,
      `dsh-timeline: expected a page with two script elements, got:\n${page.slice(0, 300)}`,
    )
    check(
      // the CLI names the file; the title stays unset unless --title gives one
      JSON.parse(blocks[0]?.[2] ?? 'null')?.file === 'session.jsonl',
      'dsh-timeline: the data block does not hold the timeline of session.jsonl',
    )
    try {
      // the page script of the built package: valid JavaScript, with no bundler helper it cannot reach
      new Script(blocks[1]?.[2] ?? '')
      check(
        !/__name|__require|require\(/.test(blocks[1]?.[2] ?? ''),
        'dsh-timeline: the page script calls a bundler helper',
      )
    } catch (error) {
      problems.push(`dsh-timeline: the page script does not compile: ${error.message}`)
    }
    check(
      run(join(timeline, 'node_modules/.bin/dsh-timeline'), ['--version'], timeline).trim() ===
        JSON.parse(readFileSync(join(repo, 'packages/tools-ui/timeline/package.json'), 'utf8')).version,
      'dsh-timeline --version does not print the package version',
    )
    expectOutput(
      'timeline ESM',
      run(process.execPath, ['smoke.mjs'], timeline),
      timelineFixture.expectedReport,
    )
    expectOutput(
      'timeline CommonJS',
      run(process.execPath, ['smoke.cjs'], timeline),
      timelineFixture.expectedReport,
    )
    console.log(`timeline install: ${kb(bytesUnder(join(timeline, 'node_modules')))} in node_modules`)

    step('installing the BullMQ dispatch project')
    // 6. The BullMQ dispatch plugin, with bullmq and ioredis from the registry: loads from ESM and
    // CommonJS and refuses bad options by name (no Redis needed; the tests use a real one).
    const bull = join(work, 'bullmq')
    npmInstall(bull, {
      ...Object.fromEntries(bullmqFixture.packages.map((name) => [name, allLocal[name]])),
      zod: CONSUMER_ZOD,
    })
    for (const [file, source] of Object.entries(bullmqFixture.files)) writeFileSync(join(bull, file), source)
    expectOutput('bullmq ESM', run(process.execPath, ['smoke.mjs'], bull), bullmqFixture.expectedReport)
    expectOutput('bullmq CommonJS', run(process.execPath, ['smoke.cjs'], bull), bullmqFixture.expectedReport)
    console.log(`bullmq install: ${kb(bytesUnder(join(bull, 'node_modules')))} in node_modules`)

    step('installing the PostgreSQL store project')
    // 7. The PostgreSQL store with pg from the registry, against a real server, from ESM and CommonJS.
    const postgres = join(work, 'postgres')
    npmInstall(postgres, {
      ...Object.fromEntries(postgresFixture.packages.map((name) => [name, allLocal[name]])),
      ...postgresFixture.registry,
    })
    for (const [file, source] of Object.entries(postgresFixture.files))
      writeFileSync(join(postgres, file), source)
    // a missing server is one clear line (and the rest of the check still runs), not a stack trace
    const server = process.env[URL_VARIABLE]
      ? undefined
      : await startPostgres().catch((error) => {
          problems.push(`postgres: could not start a throwaway PostgreSQL: ${error.message}`)
          return null
        })
    try {
      const url = process.env[URL_VARIABLE] || server?.url
      for (const [label, file] of url === undefined
        ? []
        : [
            ['postgres ESM', 'smoke.mjs'],
            ['postgres CommonJS', 'smoke.cjs'],
          ]) {
        const env = {
          ...process.env,
          [URL_VARIABLE]: url,
          DSH_PACKED_SCHEMA: `packed_${process.pid}_${file.slice(-3)}`,
        }
        expectOutput(label, run(process.execPath, [file], postgres, { env }), postgresFixture.expectedReport)
      }
    } finally {
      await server?.stop()
    }
    console.log(`postgres install: ${kb(bytesUnder(join(postgres, 'node_modules')))} in node_modules`)
    step('installing the OpenTelemetry project')
    // 8. The OpenTelemetry plugin, with the API and the SDK from the registry: a traced agent turn
    // recorded by the in-memory exporter, from ESM and CommonJS, and a TypeScript consumer.
    const otel = join(work, 'otel')
    npmInstall(otel, {
      ...Object.fromEntries(otelFixture.packages.map((name) => [name, allLocal[name]])),
      ...otelFixture.registry,
      zod: CONSUMER_ZOD,
    })
    check(installedCopies(otel, 'zod').length === 1, 'otel: expected exactly one zod')
    check(
      installedCopies(otel, '@opentelemetry/api').length === 1,
      'otel: expected exactly one @opentelemetry/api',
    )
    for (const [file, source] of Object.entries(otelFixture.files)) writeFileSync(join(otel, file), source)
    expectOutput('otel ESM', run(process.execPath, ['smoke.mjs'], otel), otelFixture.expectedReport)
    expectOutput('otel CommonJS', run(process.execPath, ['smoke.cjs'], otel), otelFixture.expectedReport)
    writeFileSync(
      join(otel, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          module: 'node16',
          moduleResolution: 'node16',
          target: 'es2022',
          strict: true,
          exactOptionalPropertyTypes: true,
          noUncheckedIndexedAccess: true,
          noEmit: true,
          types: [],
        },
        files: ['consumer.mts', 'consumer.cts'],
      }),
    )
    try {
      run(process.execPath, [tsc, '-p', 'tsconfig.json'], otel)
    } catch (error) {
      problems.push(`otel: tsc (module node16) failed:\n${error.stdout}${error.stderr}`)
    }
    console.log(`otel install: ${kb(bytesUnder(join(otel, 'node_modules')))} in node_modules`)

    step('installing the AI SDK bridge project')
    // 9. The AI SDK bridge with its peers from the registry (the AI SDK 6 line): a hand-written
    // LanguageModelV3 and an AI SDK tool, from ESM, CommonJS and an esbuild bundle.
    const aiSdk = join(work, 'ai-sdk')
    npmInstall(aiSdk, {
      ...Object.fromEntries(aiSdkFixture.packages.map((name) => [name, allLocal[name]])),
      ...aiSdkFixture.registry,
    })
    check(
      installedCopies(aiSdk, '@ai-sdk/provider').length === 1,
      'ai-sdk: expected exactly one @ai-sdk/provider',
    )
    for (const [file, source] of Object.entries(aiSdkFixture.files)) writeFileSync(join(aiSdk, file), source)
    expectOutput('ai-sdk ESM', run(process.execPath, ['smoke.mjs'], aiSdk), aiSdkFixture.expectedReport)
    expectOutput('ai-sdk CommonJS', run(process.execPath, ['smoke.cjs'], aiSdk), aiSdkFixture.expectedReport)
    const aiSdkBundle = await esbuild.build({
      absWorkingDir: aiSdk,
      entryPoints: ['smoke.mjs'],
      bundle: true,
      platform: 'node',
      target: 'node20',
      format: 'esm',
      outfile: join(aiSdk, 'out', 'ai-sdk-bundle.mjs'),
      logLevel: 'silent',
    })
    check(
      aiSdkBundle.warnings.length === 0,
      `esbuild ai-sdk-bundle.mjs: unexpected warnings ${aiSdkBundle.warnings.map((w) => w.id || w.text).join(', ')}`,
    )
    cpSync(join(aiSdk, 'out', 'ai-sdk-bundle.mjs'), join(bundles, 'ai-sdk-bundle.mjs'))
    expectOutput(
      'ai-sdk esbuild bundle',
      run(process.execPath, ['ai-sdk-bundle.mjs'], bundles),
      aiSdkFixture.expectedReport,
    )
    console.log(`ai-sdk install: ${kb(bytesUnder(join(aiSdk, 'node_modules')))} in node_modules`)
  }
} finally {
  if (keep) console.log(`kept ${work}`)
  else rmSync(work, { recursive: true, force: true })
}

if (problems.length > 0) {
  console.error(`\npacked-artifact check failed:\n- ${problems.join('\n- ')}`)
  process.exit(1)
}
console.log(
  runtimeOnly
    ? 'packed artifacts ok (runtime only): ESM, CommonJS, a TypeScript program in the code runtime with its own line numbers (ESM, CommonJS)'
    : 'packed artifacts ok: publint and attw clean, the README install with npm and pnpm, ESM, CommonJS, a TypeScript program in the code runtime with its own line numbers (ESM, CommonJS, no esbuild), esbuild bundles (esm, cjs, esm→cjs), tsc node16/nodenext, zod 3.25, MCP plugin (ESM, CommonJS), timeline (command, ESM, CommonJS), BullMQ dispatch (ESM, CommonJS), PostgreSQL store (ESM, CommonJS), OpenTelemetry plugin (ESM, CommonJS, tsc node16), AI SDK bridge (ESM, CommonJS, esbuild bundle)',
)
