/**
 * The scripted model's `run_code` programs (Code Mode): the same story, told as programs whose tool
 * calls are nested calls (T33), run through the same pipeline, permission rules and approvals, and
 * recorded in the session under their `run_code` call. Results reach the program, not the model:
 * each program reports what matters with `console.log` and its return value.
 */
export const STORY_PROGRAMS = {
  tour: `const attempt = async (what: string, call: () => Promise<unknown>) => {
  try {
    return await call()
  } catch (error) {
    return \`\${what}: \${(error as Error & { code?: string }).code}: \${(error as Error).message}\`
  }
}
const [list, architecture, pipeline, barrier, sum, now] = await Promise.all([
  tools.list_docs({}),
  tools.read_doc({ path: 'architecture.md', lines: 3 }),
  tools.read_doc({ path: 'pipeline.md', lines: 3 }),
  tools.grep_docs({ text: 'barrier' }),
  tools.calculate({ expression: '(3 + 4) * 6' }),
  tools.clock({ timeZone: 'UTC' }),
])
const tries = await Promise.all([
  attempt('long_task index', () => tools.long_task({ job: 'index', steps: 2 })),
  attempt('long_task reindex', () => tools.long_task({ job: 'reindex', steps: 50 })),
  attempt('check_service', () => tools.check_service({ name: 'status' })),
  attempt('read_doc ../.env', () => tools.read_doc({ path: '../.env' })),
  attempt('calculate 42', () => tools.calculate({ expression: 42 as unknown as string })),
])
console.log(String(barrier).split('\\n')[0])
for (const line of tries) console.log(String(line).split('\\n')[0])
return { files: String(list).split('\\n').length, read: [architecture, pipeline].map((text) => String(text).split('\\n')[0]), sum, now }`,
  note: `const list = String(await tools.list_docs({}))
const text = \`# A tour of docs/\\n\\nFiles: \${list.split('\\n').map((line) => line.split(' ')[0]).join(', ')}\\n\`
const [before, wrote, after] = await Promise.allSettled([
  tools.read_doc({ path: 'code-mode.md', lines: 3 }),
  tools.write_note({ name: 'tour.md', text }),
  tools.grep_docs({ text: 'abort' }),
])
const told = (result: PromiseSettledResult<unknown>) =>
  result.status === 'fulfilled' ? String(result.value).split('\\n')[0] : \`failed: \${(result.reason as Error).message}\`
return { before: told(before), note: told(wrote), after: told(after) }`,
  nightly: `const results = await Promise.allSettled([
  tools.long_task({ job: 'backup', steps: 3 }),
  tools.long_task({ job: 'stats', steps: 3 }),
  tools.long_task({ job: 'backup', steps: 2 }),
  tools.clock({}),
])
return results.map((result) => (result.status === 'fulfilled' ? result.value : \`failed: \${(result.reason as Error).message}\`))`,
} as const
