import { closeSync, constants, mkdirSync, openSync, realpathSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import { z } from 'zod'
import { defineTool } from '@deepseek-ai/dsh-tools'

const MAX_NOTE_BYTES = 10_000

/**
 * `write_note`: writes a text file into the scratch folder, and nowhere else. The name is a plain
 * file name (no folder, no leading dot), and the file is opened without following a link, so a
 * link planted in the scratch folder cannot send the write elsewhere. Exclusive (it declares no
 * `isConcurrencySafe`, so it is a barrier) and never started while the model still streams
 * (`eager: false`); the permission rules make it ask for approval.
 */
export function writeNoteTool(options: { readonly scratch: string }) {
  return defineTool({
    // the limits below (string lengths) are outside strict function calling's subset
    strict: false,
    name: 'write_note',
    description:
      'Write a short text note into the scratch folder (needs the user’s approval). Overwrites a note of the same name.',
    parameters: z.object({
      name: z
        .string()
        .regex(
          /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/,
          'a plain file name: letters, digits, ".", "_", "-", not starting with "."',
        ),
      text: z.string().max(MAX_NOTE_BYTES),
    }),
    eager: false,
    presentCall: ({ name, text }) => `write_note ${name} (${Buffer.byteLength(text)} bytes)`,
    execute: ({ name, text }) => {
      mkdirSync(options.scratch, { recursive: true })
      const path = join(realpathSync(options.scratch), name)
      let fd: number
      try {
        fd = openSync(
          path,
          constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW,
          0o644,
        )
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ELOOP') {
          throw new Error(`${JSON.stringify(name)} is a symbolic link in the scratch folder; not followed`)
        }
        throw error
      }
      try {
        const bytes = Buffer.from(text, 'utf8')
        let written = 0
        while (written < bytes.length) written += writeSync(fd, bytes, written)
        return `wrote ${bytes.length} bytes to ${path}`
      } finally {
        closeSync(fd)
      }
    },
  })
}
