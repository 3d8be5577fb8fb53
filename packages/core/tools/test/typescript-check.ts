import ts from 'typescript'

export interface Diagnostic {
  readonly file: string
  /** 1-based. */
  readonly line: number
  readonly code: number
  readonly message: string
}

const options: ts.CompilerOptions = {
  strict: true,
  noEmit: true,
  target: ts.ScriptTarget.ES2022,
  lib: ['lib.es2022.d.ts'],
  types: [],
  exactOptionalPropertyTypes: true,
  noUncheckedIndexedAccess: true,
}

// The standard library is parsed once per test file, not once per program.
const libraries = new Map<string, ts.SourceFile | undefined>()

/** Type-checks in-memory files (scripts share one global scope) with the TypeScript compiler API. */
export function typeCheck(files: Readonly<Record<string, string>>): Diagnostic[] {
  const host = ts.createCompilerHost(options, true)
  const fromDisk = host.getSourceFile.bind(host)
  host.getSourceFile = (name, language, onError) => {
    const text = files[name]
    if (text !== undefined) return ts.createSourceFile(name, text, language, true)
    if (!libraries.has(name)) libraries.set(name, fromDisk(name, language, onError))
    return libraries.get(name)
  }
  const exists = host.fileExists.bind(host)
  host.fileExists = (name) => name in files || exists(name)
  const read = host.readFile.bind(host)
  host.readFile = (name) => files[name] ?? read(name)
  const program = ts.createProgram(Object.keys(files), options, host)
  return ts.getPreEmitDiagnostics(program).map((d) => ({
    file: d.file?.fileName ?? '(global)',
    line:
      d.file === undefined || d.start === undefined
        ? 0
        : d.file.getLineAndCharacterOfPosition(d.start).line + 1,
    code: d.code,
    message: ts.flattenDiagnosticMessageText(d.messageText, '\n'),
  }))
}
