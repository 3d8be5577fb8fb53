/**
 * Pieces of TypeScript source the SDK generator writes. Everything that comes from a schema (names,
 * descriptions, literals) passes through here, so no schema text can end a comment or a string
 * early and inject declarations into the SDK.
 */

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/
const LINE_BREAK = /\r\n|[\r\n\u2028\u2029]/

/** Writes a string literal: JSON's escaping plus the two line separators JSON leaves raw. */
export function stringLiteral(text: string): string {
  return JSON.stringify(text)
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029')
}

/** A member name: bare when it is an identifier (`read_file`), quoted otherwise (`"my-tool"`). */
export function memberName(name: string): string {
  return IDENTIFIER.test(name) ? name : stringLiteral(name)
}

/** How to reach a member in code: `tools.read_file` or `tools["my-tool"]`. */
export function memberAccess(object: string, name: string): string {
  return IDENTIFIER.test(name) ? `${object}.${name}` : `${object}[${stringLiteral(name)}]`
}

/**
 * A JSDoc block at `indent`, or `''` without lines. `*\/` inside the text is broken up so a
 * description cannot close the comment.
 */
export function jsDoc(lines: readonly string[], indent: string): string {
  const body = lines
    .flatMap((line) => line.split(LINE_BREAK))
    .map((line) => line.replace(/\*\//g, '*\\/').trimEnd())
  while (body.length > 0 && body[body.length - 1] === '') body.pop()
  while (body.length > 0 && body[0] === '') body.shift()
  if (body.length === 0) return ''
  if (body.length === 1) return `${indent}/** ${body[0]} */\n`
  return `${indent}/**\n${body.map((line) => (line === '' ? `${indent} *` : `${indent} * ${line}`)).join('\n')}\n${indent} */\n`
}

/** `read_file` → `ReadFile`, `__schema0` → `Schema0`, `3d` → `T3d`: a type-name stem. */
export function pascalCase(text: string): string {
  const words = text.split(/[^A-Za-z0-9]+/).filter((word) => word !== '')
  const joined = words.map((word) => word[0]!.toUpperCase() + word.slice(1)).join('')
  if (joined === '') return 'Type'
  return /^[0-9]/.test(joined) ? `T${joined}` : joined
}
