import { defineConfig } from 'tsup'

// Plain Node 20 cannot run TypeScript: the demo is compiled to dist/main.js. Every bare import stays
// external, so the dsh packages load from their built dist/ as a user gets them.
export default defineConfig({
  entry: { main: 'src/main.ts' },
  format: ['esm'],
  target: 'node20',
  platform: 'node',
  clean: true,
  external: [/^[^./]/],
})
