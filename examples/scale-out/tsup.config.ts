import { defineConfig } from 'tsup'

// Plain Node 20 cannot run TypeScript: the two processes are compiled to dist/. Every bare import
// stays external, so the dsh packages load from their built dist/ as a user gets them.
export default defineConfig({
  entry: { harness: 'src/harness.ts', worker: 'src/worker.ts' },
  format: ['esm'],
  target: 'node20',
  platform: 'node',
  clean: true,
  external: [/^[^./]/],
})
