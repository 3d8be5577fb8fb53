import { fail, type Scanner } from './scanner.ts'
import { HOLE, type WordBuilder } from './shell-word.ts'

/** `$'…'`: decoded as bash decodes it; escapes whose result depends on the locale are holes. */
export function readAnsiC(sc: Scanner, b: WordBuilder): void {
  const { s } = sc
  let i = sc.i + 2
  b.quoted = true
  const simple: Record<string, string> = {
    a: '\x07',
    b: '\b',
    e: '\x1b',
    E: '\x1b',
    f: '\f',
    n: '\n',
    r: '\r',
    t: '\t',
    v: '\v',
    '\\': '\\',
    "'": "'",
    '"': '"',
    '?': '?',
  }
  // A NUL ends the C string bash builds from the quote: the rest of it is read but adds nothing.
  let ended = false
  const add = (text: string): void => {
    if (!ended) b.value += text
  }
  for (;;) {
    const c = s[i]
    if (c === undefined) fail('an unterminated ANSI-C quote "$\'"')
    if (c === "'") break
    if (c !== '\\') {
      add(c)
      i++
      continue
    }
    const e = s[i + 1]
    if (e === undefined) fail('an unterminated ANSI-C quote "$\'"')
    const mapped = simple[e]
    if (mapped !== undefined) {
      add(mapped)
      i += 2
      continue
    }
    let code: number | undefined
    let length = 0
    if (/[0-7]/.test(e)) {
      const m = /^[0-7]{1,3}/.exec(s.slice(i + 1, i + 4))!
      code = Number.parseInt(m[0], 8)
      length = m[0].length
    } else if (e === 'x') {
      const m = /^[0-9A-Fa-f]{1,2}/.exec(s.slice(i + 2, i + 4))
      if (m !== null) {
        code = Number.parseInt(m[0], 16)
        length = 1 + m[0].length
      }
    } else if (e === 'u' || e === 'U') {
      // \u takes up to 4 hex digits, \U up to 8; up to 0x7f the code is the ASCII character in
      // every locale, above it the bytes depend on the locale (a hole).
      const m = (e === 'u' ? /^[0-9A-Fa-f]{0,4}/ : /^[0-9A-Fa-f]{0,8}/).exec(s.slice(i + 2, i + 10))!
      if (m[0] !== '') {
        const unicode = Number.parseInt(m[0], 16)
        if (unicode > 0x7f) {
          add(HOLE)
          i += 2 + m[0].length
          continue
        }
        code = unicode
        length = 1 + m[0].length
      }
    } else if (e === 'c') {
      // Depends on bash's control-character table: not guessed.
      const m = /^.?/s.exec(s.slice(i + 2, i + 3))!
      add(HOLE)
      i += 2 + m[0].length
      continue
    }
    if (code === undefined) {
      // An unknown escape stays as written.
      add(`\\${e}`)
      i += 2
    } else {
      if (code === 0) ended = true
      // Bytes above ASCII are not characters on their own.
      else add(code > 0x7f ? HOLE : String.fromCharCode(code))
      i += 1 + length
    }
  }
  sc.i = i + 1
}
