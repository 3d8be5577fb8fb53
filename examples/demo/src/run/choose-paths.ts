import { existsSync, mkdirSync, mkdtempSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import type { DemoArgs } from '../cli/parse-demo-args.ts'
import { DemoError } from '../errors.ts'

/** Where the session goes: a new file, or the one to resume; and a fresh scratch folder. */
export function choosePaths(args: DemoArgs, cwd: string): { sessionPath: string; scratch: string } {
  const work = mkdtempSync(join(tmpdir(), 'dsh-demo-'))
  const scratch = join(work, 'scratch')
  mkdirSync(scratch)
  if (args.resume !== undefined) {
    const sessionPath = resolve(cwd, args.resume)
    if (!existsSync(sessionPath)) {
      throw new DemoError({
        code: 'SESSION',
        message: `--resume ${args.resume}: there is no session file there`,
      })
    }
    return { sessionPath, scratch }
  }
  if (args.session !== undefined) {
    const sessionPath = resolve(cwd, args.session)
    if (existsSync(sessionPath) && statSync(sessionPath).size > 0) {
      throw new DemoError({
        code: 'SESSION',
        message: `--session ${args.session} already holds a session; carry it on with --resume ${args.session}, or name a new file`,
      })
    }
    return { sessionPath, scratch }
  }
  return { sessionPath: join(work, 'session.jsonl'), scratch }
}
