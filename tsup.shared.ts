import { readFileSync } from 'node:fs'
import { defineConfig, type Options } from 'tsup'

type EsbuildPlugin = NonNullable<Options['esbuildPlugins']>[number]

/**
 * A source file may import its package's `package.json` (the tools package does, for its name and
 * version). The build inlines only `name` and `version`, never the rest of the manifest (scripts,
 * workspace ranges), and nothing reads the file at run time, so bundles of the build work.
 */
const manifestIdentity: EsbuildPlugin = {
  name: 'dsh-manifest-identity',
  setup(build) {
    build.onLoad({ filter: /[\\/]package\.json$/ }, (args) => {
      const { name, version } = JSON.parse(readFileSync(args.path, 'utf8')) as {
        name: string
        version: string
      }
      return { contents: JSON.stringify({ name, version }), loader: 'json' }
    })
  },
}

/**
 * Every package builds the same way: an ESM build (`.js`) and a CommonJS build (`.cjs`) of each
 * entry, each with its own declarations (`.d.ts` / `.d.cts`), and no source maps (they would point
 * at `src/`, which is not published). DEVELOPERS.md says why there is a real CommonJS build.
 */
export function definePackageBuild(options: Pick<Options, 'entry' | 'external' | 'splitting'> = {}) {
  return defineConfig({
    entry: { index: 'src/index.ts' },
    format: ['esm', 'cjs'],
    dts: true,
    sourcemap: false,
    clean: true,
    target: 'node20',
    platform: 'node',
    // No shims: tsup's ESM shim for `__filename` calls `fileURLToPath(import.meta.url)` at import,
    // which crashes when a consumer bundles the ESM build into CommonJS. Code that wants its own
    // location reads `import.meta.url` and falls back to `__filename` (tools/src/package-info.ts);
    // the CommonJS build has no `import.meta`, so it takes the fallback without a warning.
    esbuildOptions(options, { format }) {
      if (format === 'cjs') options.define = { ...options.define, 'import.meta.url': 'undefined' }
    },
    tsconfig: 'tsconfig.build.json',
    esbuildPlugins: [manifestIdentity],
    ...options,
  })
}

export default definePackageBuild()
