import fc from 'fast-check'
import { PATH_BUILTINS, STUB_PROGRAMS } from './bash-oracle.ts'

/**
 * fast-check arbitraries that compose bash command lines from the grammar: words built from
 * plain characters, single quotes, double quotes (with expansions inside), `$'…'`, backslash
 * escapes (also of newlines, quotes, `#`, `$` and backticks), `#` comments (with quotes in them),
 * parameter expansions, `$(…)`, backticks (nested ones escaped as bash wants), `$((…))`, `<(…)`,
 * substitutions nested up to `depth`, here-documents (quoted, unquoted, `<<-`), assignments,
 * redirections, wrappers with their options, code strings (`eval`, `bash -c`, `sh -c`, `trap`),
 * compound commands, separators and newlines. A part of the generated lines is then mutated one
 * character at a time, so near-misses of the grammar are tried too.
 *
 * Every program word names a stub of the oracle (or a builtin), every redirection target is a
 * relative name or /dev/null, no word changes `PATH` or the working directory: what bash runs is
 * always a logging stub.
 */

const pick = <T>(...values: T[]): fc.Arbitrary<T> => fc.constantFrom(...values)

/** Characters of unquoted words (no blanks, no operators). */
const PLAIN = 'abcxyz019-_./=:,+@%^'
/** Characters that mean something unquoted inside a word. */
const SPECIAL = '#{}~*?[]!'
/** Anything printable a quoted string may hold. */
const ANY_TEXT = `${PLAIN}${SPECIAL} ;&|()<>'"\\$\`\n\t`

const text = (alphabet: string, maxLength: number): fc.Arbitrary<string> =>
  fc.string({ unit: fc.constantFrom(...alphabet), maxLength })

const singleQuoted = text(ANY_TEXT.replace("'", ''), 8).map((t) => `'${t}'`)
const escaped = fc.constantFrom(...`${PLAIN}${SPECIAL} ;&|()<>'"\\$\`\n`).map((c) => `\\${c}`)
const ANSI_C_ESCAPES = ['\\n', '\\t', "\\'", '\\\\', '\\x41', '\\101', '\\e', '\\"', '\\$', '\\z', '\\u00e9']
const ansiCOf = (escapes: readonly string[]): fc.Arbitrary<string> =>
  fc
    .array(fc.oneof(text(PLAIN, 3), pick(...escapes)), { maxLength: 3 })
    .map((parts) => `$'${parts.join('')}'`)
const ansiC = ansiCOf(ANSI_C_ESCAPES)
/**
 * For the parse oracle, without the escaped backslash: tree-sitter-bash reads the `\'` that ends
 * `$'…\\'` as an escaped quote and the string as going on (seen: `umask $'\n\\'` followed by
 * `'a<newline>-\'` gave a command "-'"), which bash does not.
 */
const ansiCForParser = ansiCOf(ANSI_C_ESCAPES.filter((e) => e !== '\\\\'))
const VARIABLES = ['x', 'HOME', 'PWD', '1', '@', '#', '?', 'EMPTY']
const simpleParameter = fc.oneof(
  pick(...VARIABLES).map((v) => `$${v}`),
  pick(...VARIABLES).map((v) => `\${${v}}`),
  pick('x', 'HOME').map((v) => `\${#${v}}`),
)

/** Escapes a script for use inside backticks: `\` and backticks get a backslash. */
const inBackticks = (script: string): string => script.replace(/[\\`]/g, (c) => `\\${c}`)
/** A script as one single-quoted word. */
const singleQuote = (script: string): string => `'${script.replace(/'/g, "'\\''")}'`
/** A script as one double-quoted word (its expansions are then the outer shell's). */
const doubleQuote = (script: string): string => `"${script.replace(/[\\"$`]/g, (c) => `\\${c}`)}"`

export interface CommandArbitraries {
  readonly script: fc.Arbitrary<string>
}

export interface GeneratorOptions {
  readonly depth: number
  /** `real`: only wrapper options that keep `PATH` (for the execution oracle's real-wrapper mode). */
  readonly wrappers: 'stub' | 'real'
  /**
   * For the parse oracle: leave out what tree-sitter-bash reads differently from bash (here-documents,
   * prefix assignments, `time`/`coproc`/`!`, escaped program names, backticks, comments), and put
   * commands where they never run (`false && …`, `if false; then …`, functions never called).
   */
  readonly forParser?: boolean
}

/** The arbitraries, with substitutions nested at most `depth` deep. */
export function commandArbitraries(options: GeneratorOptions): CommandArbitraries {
  const forParser = options.forParser === true
  const scripts = new Map<number, fc.Arbitrary<string>>()

  function script(depth: number): fc.Arbitrary<string> {
    const cached = scripts.get(depth)
    if (cached !== undefined) return cached
    const arbitrary = fc
      .tuple(
        fc.array(
          fc.tuple(
            fc.oneof(
              { weight: 5, arbitrary: pipeline(depth) },
              { weight: forParser ? 0 : 1, arbitrary: heredoc(depth) },
            ),
            separator,
          ),
          {
            minLength: 1,
            maxLength: depth === options.depth ? 3 : 1,
          },
        ),
        forParser ? fc.constant(null) : fc.option(comment, { freq: 4 }),
      )
      .map(([items, tail]) => {
        let out = ''
        items.forEach(([item, sep], i) => {
          const last = i === items.length - 1
          // A here-document ends its line; its body follows.
          if (item.endsWith('\n')) out += item
          else out += last ? item : `${item}${sep}`
        })
        return tail === null ? out : `${out}${out.endsWith('\n') ? '' : ' '}${tail}\n`
      })
    scripts.set(depth, arbitrary)
    return arbitrary
  }

  const separator = pick('; ', ';', ' && ', ' || ', ' | ', ' |& ', ' & ', '\n', ' ;\n', '\n\n')
  const comment = fc.tuple(text(ANY_TEXT.replace('\n', ''), 10)).map(([t]) => `#${t}`)

  function substitution(depth: number): fc.Arbitrary<string> {
    if (depth <= 0) return simpleParameter
    const inner = script(depth - 1).map((s) => s.replace(/\n+$/, '\n'))
    return fc.oneof(
      inner.map((s) => `$(${s})`),
      inner.map((s) => `$( ${s} )`),
      ...(forParser ? [] : [inner.map((s) => `\`${inBackticks(s)}\``)]),
      inner.map((s) => `\${x:-$(${s})}`),
      inner.map((s) => `$(( 1 + $(${s}) ))`),
      pick('$((1+2))', '$((x+1))', '$[2*3]'),
      inner.map((s) => `<(${s})`),
      simpleParameter,
    )
  }

  function doubleQuoted(depth: number): fc.Arbitrary<string> {
    const piece = fc.oneof(
      text(ANY_TEXT.replace(/["\\$`]/g, ''), 6),
      pick('\\"', '\\$', '\\`', '\\\\', '\\n', '\\#'),
      substitution(depth),
      simpleParameter,
    )
    return fc.array(piece, { maxLength: 3 }).map((parts) => `"${parts.join('')}"`)
  }

  function wordPart(depth: number): fc.Arbitrary<string> {
    return fc.oneof(
      { weight: 6, arbitrary: text(PLAIN, 5).filter((t) => t !== '') },
      { weight: 1, arbitrary: text(SPECIAL, 2).filter((t) => t !== '') },
      { weight: 2, arbitrary: singleQuoted },
      { weight: 2, arbitrary: doubleQuoted(depth) },
      { weight: 2, arbitrary: escaped },
      { weight: 1, arbitrary: forParser ? ansiCForParser : ansiC },
      { weight: 1, arbitrary: substitution(depth) },
    )
  }

  const words = new Map<number, fc.Arbitrary<string>>()
  function word(depth: number): fc.Arbitrary<string> {
    const cached = words.get(depth)
    if (cached !== undefined) return cached
    const arbitrary = fc
      .array(wordPart(depth), { minLength: 1, maxLength: 2 })
      .map((parts) => parts.join(''))
      .filter((w) => !w.startsWith('#') && !/^\{|^!|^\[\[/.test(w))
    words.set(depth, arbitrary)
    return arbitrary
  }

  // `cd` would move later redirections out of the scratch directory: it is never generated.
  // `time` is generated as the reserved word (a wrapper below), whose stub runs only after a pipe.
  const programName = pick(
    ...STUB_PROGRAMS.filter((p) => p !== 'time'),
    ...PATH_BUILTINS.filter((b) => b !== 'cd'),
    ':',
  )
  const programWord = fc.oneof(
    { weight: 8, arbitrary: programName },
    {
      weight: forParser ? 0 : 2,
      arbitrary: programName
        .filter((n) => /^[a-z]{2,}/.test(n))
        .chain((n) =>
          pick(
            `'${n}'`,
            `"${n}"`,
            `${n[0]}''${n.slice(1)}`,
            `\\${n}`,
            `${n[0]}\\${n.slice(1)}`,
            `./bin/${n}`,
            `bin/${n}`,
            `"$PWD"/bin/${n}`,
          ),
        ),
    },
    // Computed program words; `$EMPTY` is never assigned, so no generated value becomes a program path.
    {
      weight: forParser ? 0 : 1,
      arbitrary: pick("$'\\x72m'", '$(echo rm)', '$EMPTY', 'r*', '{rm,x}', '"$EMPTY"ls'),
    },
  )

  const wrapper =
    options.wrappers === 'real'
      ? pick(
          'timeout 5',
          'timeout -s KILL 5',
          'timeout --kill-after=9 5',
          'nice',
          'nice -n 10',
          'nice -5',
          'nohup',
          'stdbuf -o0',
          'stdbuf -oL -e0',
          'ionice -c3',
          'ionice -c 3 -t',
          'setsid',
          'setsid -w',
          'env',
          'env A=1',
          'env -u HOME',
          'env -- A=1',
          // GNU env takes any operand with a "=" for a variable, an empty name too.
          'env =1',
          'env -- =1 a-b=c',
          'xargs',
          'xargs -n1',
          'xargs -r',
          'xargs -I{}',
          // -n: a nested flock on the same file fails at once instead of waiting forever for its parent
          'flock -n lockfile',
        )
      : forParser
        ? pick(
            'timeout 5',
            'nice -n 10',
            'nohup',
            'stdbuf -o0',
            'sudo -u root',
            'env A=1',
            'xargs',
            'command',
          )
        : pick(
            'timeout 5',
            'nice -n 10',
            'nohup',
            'stdbuf -o0',
            'ionice -c3',
            'setsid',
            'sudo',
            'sudo -u root',
            'doas -u root',
            'env -i',
            'env A=1',
            'xargs',
            'xargs -n 1',
            'busybox',
            'command',
            'builtin',
            'exec',
            'time',
            'time -p',
            'coproc',
            '!',
          )

  function redirection(depth: number): fc.Arbitrary<string> {
    return fc.oneof(
      pick('>out', '> out', '2>&1', '>/dev/null', '2>/dev/null', '&>out', '>>out', '<out', '4>&-'),
      word(depth).map((w) => `<<<${w}`),
      word(depth)
        .map((w) => `>${w.startsWith('/') ? `.${w}` : w}`)
        .filter((w) => !/[$`(]/.test(w) && !w.includes('/')),
    )
  }

  function simpleCommand(depth: number): fc.Arbitrary<string> {
    return fc
      .tuple(
        fc.array(
          fc.tuple(pick('A', 'x', 'b_1'), word(depth)).map(([n, v]) => `${n}=${v}`),
          { maxLength: forParser ? 0 : 1 },
        ),
        fc.array(wrapper, { maxLength: 2 }),
        programWord,
        fc.array(word(depth), { maxLength: 2 }),
        fc.array(redirection(depth), { maxLength: 1 }),
      )
      .map(([assignments, wrappers, program, args, redirects]) => {
        // `builtin` only runs builtins; with stubs for the rest it would just fail.
        const usable = wrappers.filter(
          (w) => w !== 'builtin' || ['echo', 'printf', 'test', 'true', 'false'].includes(program),
        )
        return [...assignments, ...usable, program, ...args, ...redirects].join(' ')
      })
  }

  function codeString(depth: number): fc.Arbitrary<string> {
    if (depth <= 0) return simpleCommand(0)
    const inner = script(depth - 1).map((s) => s.replace(/\n+$/, ''))
    return fc.oneof(
      inner.map((s) => `eval ${singleQuote(s)}`),
      inner.map((s) => `eval ${doubleQuote(s)}`),
      inner.map((s) => `bash -c ${singleQuote(s)}`),
      inner.map((s) => `bash -ec ${singleQuote(s)} name arg`),
      inner.map((s) => `sh -c ${singleQuote(s)}`),
      inner.map((s) => `trap ${singleQuote(s)} EXIT`),
      inner.map((s) => `printf -v ${singleQuote(`a[$(${s})]`)} x`),
      inner.map((s) => `test -v ${singleQuote(`a[$(${s})]`)}`),
      inner.map((s) => `read ${singleQuote(`a[$(${s})]`)} <<< v`),
      // A name nothing else uses: a value that evaluates itself again would recurse without end.
      inner.map((s) => `i9=${singleQuote(`a[$(${s})]`)}; echo $((i9))`),
      inner.map((s) => `echo ${singleQuote(s)} | bash`),
      inner.map((s) => `mapfile -C ${singleQuote(s)} -c 1 a <<< v`),
    )
  }

  /** A script as a list inside a compound command: ended by `;`, or by the newline it already ends with. */
  const term = (s: string): string => (s.endsWith('\n') ? s : `${s};`)
  /** A termed list as a case clause: `;;` after it. */
  const clause = (s: string): string => (s.endsWith('\n') ? `${s};;` : `${s};`)

  function compound(depth: number): fc.Arbitrary<string> {
    const body = script(Math.max(depth - 1, 0)).map(term)
    return fc.oneof(
      body.map((s) => `{ ${s} }`),
      body.map((s) => `( ${s} )`),
      fc.tuple(body, body).map(([a, b]) => `if ${a} then ${b} fi`),
      fc.tuple(body, body, body).map(([a, b, c]) => `if ${a} then ${b} else ${c} fi`),
      body.map((s) => `while x fail; do ${s} done`),
      body.map((s) => `until x; do ${s} done`),
      fc
        .tuple(fc.array(word(depth), { maxLength: 2 }), body)
        .map(([ws, s]) => `for v in ${ws.join(' ')}; do ${s} done`),
      fc
        .tuple(word(depth), body, body)
        .map(([w, a, b]) => `case ${w} in a|b) ${clause(a)} *) ${clause(b)} esac`),
      body.map((s) => `f() { ${s} }; f`),
      fc.tuple(word(depth), word(depth)).map(([a, b]) => `[[ ${a} == ${b} ]]`),
      pick('(( 1 + 2 ))', '((x++))'),
      fc.tuple(body, redirection(depth)).map(([s, r]) => `{ ${s} } ${r}`),
    )
  }

  function pipeline(depth: number): fc.Arbitrary<string> {
    if (depth <= 0) return simpleCommand(0)
    const never = script(depth - 1).map(term)
    return fc.oneof(
      { weight: 6, arbitrary: simpleCommand(depth) },
      { weight: forParser ? 0 : 2, arbitrary: codeString(depth) },
      { weight: 2, arbitrary: compound(depth) },
      {
        weight: forParser ? 3 : 0,
        arbitrary: fc.oneof(
          never.map((s) => `x fail && { ${s} }`),
          never.map((s) => `if x fail; then ${s} fi`),
          never.map((s) => `g() { ${s} }`),
          never.map((s) => `case q in r) ${clause(s)} esac`),
        ),
      },
    )
  }

  function heredoc(depth: number): fc.Arbitrary<string> {
    const line = fc.oneof(
      text(ANY_TEXT.replace('\n', ''), 8),
      substitution(depth).map((s) => `a ${s} b`),
      pick("'", '"', '\\', '$', '`', 'EOF ', ' EOF', '\tEOF'),
    )
    return fc
      .tuple(
        programWord,
        pick('<<EOF', '<< EOF', "<<'EOF'", '<<"EOF"', '<<\\EOF', '<<-EOF', '<<E\\OF'),
        fc.array(line, { maxLength: 3 }),
        fc.option(simpleCommand(depth), { freq: 3 }),
      )
      .map(([program, op, lines, after]) => {
        const delimiter = 'EOF'
        const tabs = op.startsWith('<<-') ? '\t' : ''
        const pipe = after === null ? '' : ` | ${after}`
        return `${program} ${op}${pipe}\n${lines.map((l) => `${tabs}${l}`).join('\n')}${lines.length > 0 ? '\n' : ''}${tabs}${delimiter}\n`
      })
  }

  return { script: script(options.depth) }
}

const MUTATIONS = [
  '#',
  "'",
  '"',
  '\\',
  '$',
  '`',
  '(',
  ')',
  '{',
  '}',
  ';',
  '|',
  '&',
  '\n',
  ' ',
  '<',
  '>',
  '*',
  '~',
  '!',
  '$(',
  '<<',
]

/** Command lines: mostly as generated, some with one character inserted, deleted or replaced. */
export function commandLines(options: GeneratorOptions): fc.Arbitrary<string> {
  // Short lines keep a miss readable; nesting stays as deep as `depth`.
  const script = commandArbitraries(options).script.filter((s) => s.length <= 400)
  if (options.forParser === true) return script
  return fc.oneof(
    { weight: 3, arbitrary: script },
    {
      weight: 1,
      arbitrary: fc
        .tuple(script, fc.nat(), pick('insert', 'delete', 'replace'), pick(...MUTATIONS))
        .map(([s, at, how, c]) => {
          const i = s.length === 0 ? 0 : at % s.length
          if (how === 'insert') return s.slice(0, i) + c + s.slice(i)
          if (how === 'delete') return s.slice(0, i) + s.slice(i + 1)
          return s.slice(0, i) + c + s.slice(i + 1)
        }),
    },
  )
}
