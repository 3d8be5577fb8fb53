import { defineConfig } from 'tsup'

// The bench runs under plain Node 20, which cannot load TypeScript: compile it to dist/. Every bare
// import stays external, so the dsh packages load from their built dist/ as a user gets them.
export default defineConfig({
  entry: ['src/main.ts', 'src/child.ts', 'src/profile.ts'],
  format: ['esm'],
  target: 'node20',
  platform: 'node',
  clean: true,
  splitting: true,
  external: [/^[^./]/],
})
