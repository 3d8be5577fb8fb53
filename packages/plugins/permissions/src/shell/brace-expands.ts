/**
 * Whether bash would brace-expand a word with this source text (`a{b,c}`, `{1..3}`), read the way
 * bash's own brace scanner reads quotes (bash 5.2 braces.c `brace_gobbler`), which is not the
 * way the parser reads them: `'`, `"` and backticks each quote up to the next of the same
 * character, whatever they contain, so in `"`"{a,b}"`"` the braces are unquoted and the word —
 * with the command substitution in it — is expanded into two. `${…}` and `$(…)` are skipped.
 */
export function braceExpands(text: string): boolean {
  let start = 0
  for (;;) {
    const open = findUnquoted(text, start, (c, level) => c === '{' && level === 0)
    if (open < 0) return false
    const close = findUnquoted(text, open + 1, (c, level) => c === '}' && level === 0)
    if (close < 0) return false
    const inner = text.slice(open + 1, close)
    if (findUnquoted(inner, 0, (c, level) => c === ',' && level === 0) >= 0 || /\.\./.test(inner)) return true
    start = open + 1
  }
}

/**
 * The index of the first character from `from` that `wanted` accepts outside bash's brace-scanner
 * quoting, with `level` counting the braces opened since `from`; -1 when there is none.
 */
function findUnquoted(text: string, from: number, wanted: (c: string, level: number) => boolean): number {
  let quoted: string | undefined
  let level = 0
  for (let i = from; i < text.length; i++) {
    const c = text[i]!
    if (c === '\\' && quoted !== "'") {
      i++
      continue
    }
    if (c === '$' && text[i + 1] === '{' && quoted !== "'") {
      // `${…}` is read like `\{…}`: its brace is no brace expression.
      i++
      if (quoted === undefined) level++
      continue
    }
    if (quoted !== undefined) {
      if (c === quoted) quoted = undefined
      else if (quoted === '"' && c === '$' && text[i + 1] === '(') i = skipSubstitution(text, i + 2) - 1
      continue
    }
    if (c === '"' || c === "'" || c === '`') {
      quoted = c
      continue
    }
    if ((c === '$' || c === '<' || c === '>') && text[i + 1] === '(') {
      i = skipSubstitution(text, i + 2) - 1
      continue
    }
    if (wanted(c, level)) return i
    if (c === '{') level++
    else if (c === '}' && level > 0) level--
  }
  return -1
}

/** The index after the `)` closing a substitution whose text starts at `from` (quotes respected). */
function skipSubstitution(text: string, from: number): number {
  let depth = 1
  for (let i = from; i < text.length; i++) {
    const c = text[i]!
    if (c === '\\') i++
    else if (c === "'" || c === '"' || c === '`') {
      const end = text.indexOf(c, i + 1)
      if (end < 0) return text.length
      i = end
    } else if (c === '(') depth++
    else if (c === ')' && --depth === 0) return i + 1
  }
  return text.length
}
