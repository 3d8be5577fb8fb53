/** A one-line description of anything thrown, never throwing itself (getters may). */
export function describeError(error: unknown): string {
  try {
    if (error instanceof Error) return error.message === '' ? error.name : error.message
    if (typeof error === 'string') return error
    return `a thrown ${error === null ? 'null' : typeof error}`
  } catch {
    return 'an error that could not be described'
  }
}
