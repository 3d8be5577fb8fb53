import type { Context, Disposer } from '@deepseek-ai/dsh-context'
import { permissions, type PermissionRule } from '@deepseek-ai/dsh-permissions'

/**
 * Tools that never need a person: reading the docs, arithmetic, the clock, the slow and failing
 * tools, and `run_code` (Code Mode), whose programs' calls are each decided by these same rules.
 */
const ALLOWED = [
  'list_docs',
  'read_doc',
  'grep_docs',
  'calculate',
  'clock',
  'long_task',
  'check_service',
  'run_code',
]

/** The demo's rules: secrets are denied whatever asks for them; writing a note asks; the rest is allowed. */
export const DEMO_RULES = {
  deployment: [
    {
      decision: 'deny',
      tool: '*',
      paths: ['/**/.env', '/**/.env.*', '/**/*.pem', '/**/id_rsa*'],
      reason: 'Secrets are off limits',
    },
  ],
  project: [
    { decision: 'allow', tool: ALLOWED },
    { decision: 'ask', tool: 'write_note', reason: 'it writes a file' },
  ],
} as const satisfies Record<string, readonly PermissionRule[]>

/**
 * Installs `@deepseek-ai/dsh-permissions` with the demo's rules. Paths the docs tools take are read
 * against the docs folder, so `../.env` is the repository's `.env`, which the deny rule covers before
 * the tool (which refuses anything outside docs/ anyway) is ever reached. Anything no rule names asks.
 */
export function installDemoPermissions(ctx: Context, options: { readonly docs: string }): Disposer {
  return permissions(ctx, {
    workspaceRoot: options.docs,
    defaultDecision: 'ask',
    toolArguments: {
      list_docs: { paths: ['dir'] },
      read_doc: { paths: ['path'] },
      grep_docs: { paths: ['dir'] },
    },
    layers: { deployment: [...DEMO_RULES.deployment], project: [...DEMO_RULES.project] },
  })
}
