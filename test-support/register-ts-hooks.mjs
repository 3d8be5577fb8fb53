// `node --import <this file> script.ts`, or `import '<this file>'` first thing in a plain `.mjs` child,
// runs workspace TypeScript on Node 20 without a build (see ts-hooks.mjs). Spawn such children with
// the env `tsChildEnv` (ts-child.ts) builds: DSH_TS_CACHE (transpile cache directory) and
// DSH_RESOLVE_FROM (file URL to resolve @deepseek-ai/* from).
import { register } from 'node:module'

register('./ts-hooks.mjs', import.meta.url, {
  data: { cacheDir: process.env.DSH_TS_CACHE, resolveFrom: process.env.DSH_RESOLVE_FROM },
})
