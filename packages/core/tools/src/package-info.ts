import { createRequire } from 'node:module'
import { dirname } from 'node:path'
import { fileURLToPath } from 'node:url'

// Read at run time (not inlined by the bundler) so that each physical copy of the package reports
// its own version and location in a version-mismatch error (T19). The path is the same from
// src/package-info.ts and from the bundled dist/index.js: one level below the package root.
const require = createRequire(import.meta.url)
const manifest = require('../package.json') as { readonly name: string; readonly version: string }

export const PACKAGE_NAME: string = manifest.name
export const PACKAGE_VERSION: string = manifest.version
export const PACKAGE_PATH: string = dirname(dirname(fileURLToPath(import.meta.url)))
