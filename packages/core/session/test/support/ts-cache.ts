import { tmpdir } from 'node:os'
import { join } from 'node:path'

/**
 * Where child processes cache TypeScript transpiled by fixtures/ts-hooks.mjs. Entries are keyed by
 * file path and content hash and written atomically, so one directory can be shared by every test
 * file and every run: only the first child after a source change pays for loading the compiler.
 */
export const TS_CACHE_DIR = join(tmpdir(), 'dsh-session-test-ts-cache')
