import type { transform as esbuildTransform } from 'esbuild'
import type { CodeLanguage } from './types.ts'

/** The file name the sandbox reports in stack traces of the program. */
export const PROGRAM_FILE = 'program.js'

// The header shares the program's first line, so line numbers in errors are the program's own.
const HEADER = '(async function () {'
const FOOTER = '\n})'

export type WrappedProgram =
  { readonly ok: true; readonly source: string } | { readonly ok: false; readonly message: string }

interface EsbuildMessage {
  readonly text: string
  readonly location: { readonly line: number; readonly column: number } | null
}

type Transform = typeof esbuildTransform

let transformPromise: Promise<Transform> | undefined

/**
 * Loads esbuild's `transform` once per process. esbuild starts its helper process on the first
 * transform and lets the host exit while it is idle.
 */
export function loadTransform(): Promise<Transform> {
  transformPromise ??= import('esbuild').then(
    (esbuild) => esbuild.transform,
    (error: unknown) => {
      transformPromise = undefined
      throw error
    },
  )
  return transformPromise
}

/**
 * Turns a program (the body of an async function) into a script whose completion value is that
 * async function. TypeScript is type-stripped by esbuild (a parser, never a regex); JavaScript is
 * wrapped as it is and parsed by the sandbox. A syntax error is reported with the program's line.
 */
export async function wrapProgram(program: string, language: CodeLanguage): Promise<WrappedProgram> {
  const wrapped = `${HEADER}${program}${FOOTER}`
  if (language === 'javascript') return { ok: true, source: wrapped }
  const transform = await loadTransform()
  try {
    const { code } = await transform(wrapped, {
      loader: 'ts',
      sourcefile: PROGRAM_FILE,
      // What the sandbox's QuickJS parses natively; newer syntax is lowered.
      target: 'es2023',
      tsconfigRaw: {},
      logLevel: 'silent',
    })
    return { ok: true, source: code }
  } catch (error) {
    return { ok: false, message: describeTransformError(error) }
  }
}

function describeTransformError(error: unknown): string {
  const first = (error as { errors?: readonly EsbuildMessage[] } | null)?.errors?.[0]
  if (first === undefined) return `SyntaxError: ${String(error)}`
  const where = first.location
  if (where === null) return `SyntaxError: ${first.text}`
  const column = where.line === 1 ? where.column - HEADER.length : where.column
  return `SyntaxError: ${first.text} (line ${where.line}, column ${Math.max(column, 0) + 1})`
}
