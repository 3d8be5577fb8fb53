import type { $ZodError } from 'zod/v4/core'

/** `['a', 0, 'b']` → `$.a[0].b` */
export function formatIssuePath(path: readonly PropertyKey[]): string {
  let out = '$'
  for (const part of path) out += typeof part === 'number' ? `[${part}]` : `.${String(part)}`
  return out
}

export function zodIssues(error: $ZodError): { path: string; message: string }[] {
  return error.issues.map((issue) => ({ path: formatIssuePath(issue.path), message: issue.message }))
}
