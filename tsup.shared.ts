import { defineConfig } from 'tsup'

/** Every package builds the same way: one ESM entry plus bundled declarations. */
export default defineConfig({
  entry: ['src/index.ts'],
  format: ['esm'],
  dts: true,
  sourcemap: true,
  clean: true,
  target: 'node20',
  tsconfig: 'tsconfig.build.json',
})
