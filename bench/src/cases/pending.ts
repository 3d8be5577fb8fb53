import type { PendingResult } from '../types.ts'

/**
 * Extension points for cases whose feature has not landed. When one lands, add its case to
 * `CASES` in registry.ts (a `TimedCase` factory, measured between two floors in its own process,
 * or a `figures` runner) and remove its entry here. Until then it appears in results.json and in
 * the table as pending, with no figures.
 */
export const PENDING_CASES: readonly PendingResult[] = []
