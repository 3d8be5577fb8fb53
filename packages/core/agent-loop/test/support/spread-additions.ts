import ts from 'typescript'

/**
 * Object literals that open with a spread and then add a property the spread object may lack
 * (`{ ...base, extra }`, `{ ...base, ...(cond ? { extra } : {}) }`). On Node 20 (V8 11.3) such a
 * literal costs about 1 µs: the map of the spread's copy does not keep the transition that adding
 * `extra` takes, so every add goes to the runtime (measured: `{ ...base, x: 1 }` 1,000 ns against
 * 20 ns for `{ ...base, turn: 5 }` overwriting a property `base` has, and 3 ns for a literal naming
 * every field). A property is "lacked" unless every member of the spread's type has it, required.
 * Returns `file:line: text` per finding.
 */
export function spreadAdditions(program: ts.Program, files: readonly string[]): string[] {
  const checker = program.getTypeChecker()
  const found: string[] = []
  const required = (type: ts.Type, name: string): boolean =>
    (type.isUnion() ? type.types : [type]).every((member) => {
      const property = checker.getPropertyOfType(checker.getApparentType(member), name)
      return property !== undefined && (property.flags & ts.SymbolFlags.Optional) === 0
    })
  const namesOf = (type: ts.Type): string[] =>
    (type.isUnion() ? type.types : [type]).flatMap((member) =>
      checker.getPropertiesOfType(member).map((property) => property.name),
    )
  for (const file of files) {
    const source = program.getSourceFile(file)
    if (source === undefined) throw new Error(`not in the program: ${file}`)
    const visit = (node: ts.Node): void => {
      if (ts.isObjectLiteralExpression(node) && node.properties[0] !== undefined) {
        const [first, ...rest] = node.properties
        if (ts.isSpreadAssignment(first)) {
          const base = checker.getTypeAtLocation(first.expression)
          const added = rest.flatMap((element) => {
            if (ts.isSpreadAssignment(element)) return namesOf(checker.getTypeAtLocation(element.expression))
            const name = element.name
            return name !== undefined && (ts.isIdentifier(name) || ts.isStringLiteral(name))
              ? [name.text]
              : []
          })
          const lacked = added.filter((name) => !required(base, name))
          if (lacked.length > 0) {
            const { line } = source.getLineAndCharacterOfPosition(node.getStart(source))
            found.push(`${file}:${line + 1}: adds ${lacked.join(', ')} to a spread`)
          }
        }
      }
      ts.forEachChild(node, visit)
    }
    visit(source)
  }
  return found
}

/** A program over `files` with the repository's compiler options (sources of the workspace packages). */
export function programOf(tsconfig: string, files: readonly string[]): ts.Program {
  const read = ts.readConfigFile(tsconfig, (path) => ts.sys.readFile(path))
  const parsed = ts.parseJsonConfigFileContent(read.config, ts.sys, tsconfig.replace(/[^/]*$/, ''))
  return ts.createProgram({ rootNames: [...files], options: { ...parsed.options, noEmit: true } })
}
