import { fileURLToPath } from 'node:url'
import manifest from '../../package.json' with { type: 'json' }

// The name and version are inlined into the build (the bundler copies the manifest into dist), so
// nothing reads `../package.json` at run time: a consumer's esbuild or webpack bundle has no
// package directory to read it from. Each physical copy of the package still carries its own
// version, which the scheduler handshake compares (T19).
export const PACKAGE_NAME: string = manifest.name
export const PACKAGE_VERSION: string = manifest.version

/**
 * Where this copy's code lives, for version-mismatch messages: the module file that holds it.
 * Installed from npm that is `…/node_modules/@deepseek-ai/dsh-tools/dist/index.js` (or `index.cjs`);
 * inside a consumer's bundle the package has no directory of its own, so it is the bundle file
 * (esbuild) or the path the bundler read the module from (webpack rewrites `import.meta.url`).
 */
export const PACKAGE_PATH: string = locateThisModule()

function locateThisModule(): string {
  const url: unknown = import.meta.url
  if (typeof url === 'string' && url.startsWith('file:')) return fileURLToPath(url)
  if (typeof url === 'string' && url !== '') return url
  // An ESM build bundled into CommonJS (esbuild empties `import.meta` there): the bundle file.
  return typeof __filename === 'string' ? __filename : 'an unknown location'
}
