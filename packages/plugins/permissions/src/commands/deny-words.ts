/**
 * Words a deny or ask rule looks past at the start of a command: shell keywords and wrappers that
 * run the rest of the line as a command (when not followed by an option, which would need the
 * wrapper's own option grammar). Allow rules never look past anything.
 */
const TRANSPARENT = new Set([
  '!',
  '{',
  '}',
  'if',
  'then',
  'else',
  'elif',
  'fi',
  'do',
  'done',
  'while',
  'until',
  'time',
  'builtin',
  'command',
  'exec',
  'nohup',
  'nice',
  'env',
  'sudo',
  'doas',
  'xargs',
])
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*\+?=/

/**
 * The words a deny or ask rule compares: leading keywords, wrappers and environment assignments
 * dropped (`sudo FOO=1 /bin/rm -rf /` → `rm -rf /`), and the program reduced to its last path
 * segment. Looser than the shell on purpose: a deny should catch `/bin/rm` when it names `rm`.
 *
 * Null when the program cannot be known from the text: its word is an expansion, a substitution,
 * a glob or a brace list (`$CMD`, `"$(which rm)"`, `{rm,-rf,/}`). Every deny and ask rule about
 * commands matches such a command: it fails closed. `dynamic[i]` says whether `words[i]` was
 * computed by the shell rather than written out.
 */
export function denyWords(words: readonly string[], dynamic?: readonly boolean[]): readonly string[] | null {
  let first = 0
  while (first < words.length) {
    const word = words[first]!
    if (dynamic?.[first] === true) return null
    if (ASSIGNMENT.test(word)) first++
    else if (TRANSPARENT.has(word) && !(words[first + 1] ?? '').startsWith('-')) first++
    else break
  }
  if (first >= words.length) return words.length === 0 ? words : []
  const name = words[first]!
  const slash = name.lastIndexOf('/')
  if (first === 0 && slash < 0) return words
  return [name.slice(slash + 1), ...words.slice(first + 1)]
}
