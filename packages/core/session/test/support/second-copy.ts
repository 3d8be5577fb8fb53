import { mkdirSync } from 'node:fs'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { build } from 'esbuild'
import type * as Session from '@deepseek-ai/dsh-session'

const PACKAGE_DIR = fileURLToPath(new URL('../..', import.meta.url))
const OUT_FILE = fileURLToPath(
  new URL('../../node_modules/.cache/dsh-session-second-copy.mjs', import.meta.url),
)

/**
 * A second copy of this package (and of the llm package under it), as a process that loads the ESM
 * build beside the CommonJS one, or a plugin's private install, would have: the sources bundled into
 * one file and imported as a module of its own, so its module-level state (classes, tables) is not
 * the one the tests import.
 */
export async function loadSecondCopy(): Promise<typeof Session> {
  mkdirSync(fileURLToPath(new URL('../../node_modules/.cache', import.meta.url)), { recursive: true })
  await build({
    entryPoints: [`${PACKAGE_DIR}/src/index.ts`],
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    conditions: ['dsh-source'],
    outfile: OUT_FILE,
    logLevel: 'silent',
  })
  return (await import(`${pathToFileURL(OUT_FILE).href}?t=${Date.now()}`)) as typeof Session
}
