import { mkdirSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'

const demoDir = fileURLToPath(new URL('../..', import.meta.url))

/**
 * Bundles the demo from its TypeScript sources and the workspace packages' sources (the
 * `dsh-source` export condition), so its end-to-end tests run the code as it is now, without a
 * build. The bundle sits under the demo's node_modules (inside the repository, where it finds
 * docs/); the code runtime stays external (the demo loads it only for --mode code|both). Each test
 * file names its own bundle: test files run at the same time, and one must not read a bundle
 * another is writing.
 */
export async function bundleDemo(name = 'main'): Promise<string> {
  const outfile = join(demoDir, 'node_modules', '.cache', 'dsh-demo-e2e', `${name}.mjs`)
  mkdirSync(dirname(outfile), { recursive: true })
  await build({
    entryPoints: [join(demoDir, 'src', 'main.ts')],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    conditions: ['dsh-source'],
    external: ['@deepseek-ai/dsh-code-runtime'],
    // CommonJS dependencies inside an ESM bundle still call require() for Node's modules
    banner: {
      js: "import { createRequire as __demoRequire } from 'node:module'; const require = __demoRequire(import.meta.url);",
    },
    logLevel: 'silent',
  })
  return outfile
}
