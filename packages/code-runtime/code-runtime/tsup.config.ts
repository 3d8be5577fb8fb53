import { defineConfig, type Options } from 'tsup'
import shared from '../../../tsup.shared.ts'

const base = shared as Options

export default defineConfig([
  // The package's main module, built like every package (the worker's files are kept: the two
  // builds run side by side and the worker build does not clean).
  { ...base, clean: ['!quickjs-worker.*'] },
  // The sandbox worker's entry: one self-contained ES module (the engine's JavaScript included),
  // so a bundled application copies just this file. The main module finds it next to itself.
  {
    entry: { 'quickjs-worker': 'src/quickjs-worker.ts' },
    format: ['esm'],
    outExtension: () => ({ js: '.mjs' }),
    platform: 'node',
    target: 'node20',
    tsconfig: 'tsconfig.build.json',
    noExternal: [/.*/],
    splitting: false,
    dts: false,
    sourcemap: false,
    clean: false,
  },
])
