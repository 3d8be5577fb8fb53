import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/**
 * Where child processes cache the TypeScript that ts-hooks.mjs transpiles. Entries are keyed by file
 * path and content hash and written atomically, so every test file of every package, and every
 * run, can share the directory: only the first child after a source change pays for the compiler.
 */
export const TS_CACHE_DIR = join(tmpdir(), 'dsh-test-ts-cache')

/** For `node --import <REGISTER_TS_HOOKS> script.ts`: the hooks' registration, as a file URL. */
export const REGISTER_TS_HOOKS = new URL('./register-ts-hooks.mjs', import.meta.url).href

/**
 * The environment of a child that runs workspace TypeScript through the hooks: this process's
 * environment, the shared transpile cache, and `@deepseek-ai/*` resolved as from `packageJson` (the
 * `package.json` of the package under test, whose dependencies the child may import by name).
 */
export function tsChildEnv(packageJson: URL, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    DSH_TS_CACHE: TS_CACHE_DIR,
    DSH_RESOLVE_FROM: packageJson.href,
    ...extra,
  }
}

/** A child started by `spawnTsChild`, with what it wrote on stderr so far (for failure messages). */
export interface TsChild {
  readonly child: ChildProcessWithoutNullStreams
  stderr(): string
}

/**
 * Starts `node <script> <args…>` with piped stdio and the environment of `tsChildEnv(packageJson)`:
 * `script` is a fixture that imports register-ts-hooks.mjs before anything of the workspace.
 */
export function spawnTsChild(options: {
  readonly script: string
  readonly args: readonly string[]
  readonly packageJson: URL
}): TsChild {
  const child = spawn(process.execPath, [options.script, ...options.args], {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: tsChildEnv(options.packageJson),
  })
  let stderr = ''
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  return { child, stderr: () => stderr }
}
