import { parseArgs } from 'node:util'
import { DemoError } from '../errors.ts'

export type PresentationMode = 'native' | 'code' | 'both'

/** What the command line asked for. */
export interface DemoArgs {
  readonly mode: PresentationMode
  /** Where to record a new session (default: a new temporary folder). */
  readonly session: string | undefined
  /** A session to reopen and carry on. */
  readonly resume: string | undefined
  /** Approve every call that asks. */
  readonly yes: boolean
  /** Plain appended lines even on a terminal, and nobody to ask. */
  readonly noTty: boolean
  /** The scripted model even when DSH_API_KEY / DSH_BASE_URL are set. */
  readonly scripted: boolean
  readonly help: boolean
  /** Your own question for a real model (the scripted model only plays its story). */
  readonly prompt: string | undefined
}

export const USAGE = `Usage: npm start -- [options] [question]
       node examples/demo/dist/main.js [options] [question]

An agent with safe tools over the repository's docs/, with live progress, a summary and the
command that draws the session's timeline. Offline on a scripted model unless DSH_API_KEY or
DSH_BASE_URL is set (then it asks that OpenAI-compatible endpoint; DSH_MODEL names the model).

Options:
  --mode native|code|both  native tool schemas, run_code programs (Code Mode), or both (default native)
  --session FILE           record the session in FILE (a new file; default: a temporary folder)
  --resume FILE            reopen the session in FILE and carry on where it was interrupted
  --yes                    approve every call that asks for approval
  --no-tty                 plain appended lines, no prompt (calls that ask are denied without --yes)
  --scripted               use the scripted model even when an endpoint is configured
  -h, --help               this text

Ctrl-C stops the turn: started calls drain, the rest are cancelled; Ctrl-C again quits at once.
DSH_DEMO_SLOW_MS (default 400) is one step of the slow tool; DSH_DEMO_THINK_MS (default 300) the
scripted model's time per step.`

const MODES: readonly PresentationMode[] = ['native', 'code', 'both']

/** Reads the demo's command line; a mistake is a `DemoError` `USAGE` saying what was wrong. */
export function parseDemoArgs(argv: readonly string[]): DemoArgs {
  let parsed
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      strict: true,
      options: {
        mode: { type: 'string', default: 'native' },
        session: { type: 'string' },
        resume: { type: 'string' },
        yes: { type: 'boolean', default: false },
        'no-tty': { type: 'boolean', default: false },
        scripted: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    })
  } catch (error) {
    throw new DemoError({ code: 'USAGE', message: (error as Error).message, cause: error })
  }
  const { values, positionals } = parsed
  const mode = values.mode
  if (!MODES.includes(mode as PresentationMode)) {
    throw new DemoError({
      code: 'USAGE',
      message: `--mode must be native, code or both, got ${JSON.stringify(mode)}`,
    })
  }
  if (values.session !== undefined && values.resume !== undefined) {
    throw new DemoError({
      code: 'USAGE',
      message: '--session and --resume both name a session file; give one (--resume FILE carries on in FILE)',
    })
  }
  for (const flag of ['session', 'resume'] as const) {
    if (values[flag] === '') throw new DemoError({ code: 'USAGE', message: `--${flag} needs a file name` })
  }
  return {
    mode: mode as PresentationMode,
    session: values.session,
    resume: values.resume,
    yes: values.yes,
    noTty: values['no-tty'],
    scripted: values.scripted,
    help: values.help,
    prompt: positionals.length === 0 ? undefined : positionals.join(' '),
  }
}
