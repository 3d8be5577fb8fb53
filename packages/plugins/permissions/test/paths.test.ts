import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import picomatch from 'picomatch'
import { createPermissionEngine, normalizePath, type PathContext } from '@deepseek-ai/dsh-permissions'
import { compilePathPattern } from '../src/paths/compile-path-pattern.ts'

const context: PathContext = { root: '/work/repo', home: '/home/me', caseSensitive: true }
const norm = (path: string, ctx: PathContext = context): string => {
  const result = normalizePath(path, ctx)
  if (!result.ok) throw new Error(result.problem)
  return result.path
}

function pathEngine(rules: { decision: 'allow' | 'deny' | 'ask'; paths: string | string[] }[], extra = {}) {
  return createPermissionEngine({
    workspaceRoot: '/work/repo',
    homeDir: '/home/me',
    defaultDecision: 'allow',
    toolArguments: { read_file: { paths: ['path'] } },
    layers: { project: rules.map((r) => ({ ...r, tool: 'read_file' })) },
    ...extra,
  })
}
const decisionFor = (engine: ReturnType<typeof pathEngine>, path: unknown) =>
  engine.decide({ toolName: 'read_file', args: { path } }).type

/** Segment names with no special meaning to a path (no `.`, `..`, `/`, NUL). */
const segment = fc
  .string({ minLength: 1, maxLength: 6, unit: fc.constantFrom('a', 'b', 'E', '_', '-', ' ', '*', 'é') })
  .filter((s) => s !== '.' && s !== '..')

/** Rewrites a path made of `segments` with detours that resolve back to it. */
const tricked = (segments: readonly string[]) =>
  fc
    .array(fc.constantFrom('plain', 'dot', 'double-slash', 'detour', 'escape-root'), {
      minLength: segments.length,
      maxLength: segments.length,
    })
    .chain((tricks) =>
      fc.constantFrom('', '/', '/.', '//').map((tail) => {
        const parts = segments.map((s, i) => {
          switch (tricks[i]) {
            case 'dot':
              return `./${s}`
            case 'double-slash':
              return `/${s}`
            case 'detour':
              return `zz/../${s}`
            case 'escape-root':
              // `..` above the root stays at the root, so this lands back on the path.
              return i === 0 ? `../../${s}` : s
            default:
              return s
          }
        })
        return `/${parts.join('/')}${tail}`
      }),
    )

// Property tests: the limit only keeps a hang from stalling the run; a loaded machine needs seconds.
describe('normalizePath', { timeout: 30_000 }, () => {
  it('P2: reads relative paths against the root and resolves ., .., // and trailing slashes', () => {
    expect(norm('src/a.ts')).toBe('/work/repo/src/a.ts')
    expect(norm('./src//a.ts/')).toBe('/work/repo/src/a.ts')
    expect(norm('src/../../other')).toBe('/work/other')
    expect(norm('')).toBe('/work/repo')
    expect(norm('.')).toBe('/work/repo')
    expect(norm('/etc/../etc/passwd')).toBe('/etc/passwd')
    expect(norm('//etc///passwd')).toBe('/etc/passwd')
    expect(norm('/../../etc/passwd')).toBe('/etc/passwd')
    expect(norm('../../../../../etc/shadow')).toBe('/etc/shadow')
    expect(norm('/')).toBe('/')
    expect(norm('a\\..\\b')).toBe('/work/repo/a\\..\\b')
  })

  it('P2: ~ and ~/ use homeDir; ~user, ~ without a home and NUL bytes are problems, not guesses', () => {
    expect(norm('~')).toBe('/home/me')
    expect(norm('~/.ssh/../.ssh/id_rsa')).toBe('/home/me/.ssh/id_rsa')
    expect(normalizePath('~root/x', context)).toEqual({
      ok: false,
      problem: 'it starts with "~user", which these rules do not expand',
    })
    expect(normalizePath('~/x', { ...context, home: undefined })).toEqual({
      ok: false,
      problem: 'it starts with "~" and no homeDir is configured',
    })
    expect(normalizePath('/etc/passwd\0.txt', context)).toEqual({
      ok: false,
      problem: 'it contains a NUL byte',
    })
    expect(norm('a~b')).toBe('/work/repo/a~b')
  })

  it('P2: on a case-insensitive file system case is folded and composed and decomposed names are one name', () => {
    const insensitive = { ...context, caseSensitive: false }
    expect(norm('Cafe\u0301', insensitive)).toBe('/work/repo/caf\u00e9')
    expect(norm('/ETC/\u017Fhadow/\u212Aey/Stra\u00DFe', insensitive)).toBe('/etc/shadow/key/strasse')
    expect(norm('Cafe\u0301', context)).toBe('/work/repo/Cafe\u0301')
  })

  it('P2: normalization is idempotent and yields an absolute path without ., .., empty or trailing segments', () => {
    fc.assert(
      fc.property(
        fc.string({
          unit: fc.constantFrom(
            'a',
            'A',
            '/',
            '.',
            '~',
            'é',
            'e\u0301',
            ' ',
            '\\',
            '\u017F',
            '\u212A',
            '\u00DF',
            '\u0130',
          ),
        }),
        fc.boolean(),
        (input, caseSensitive) => {
          const ctx = { ...context, caseSensitive }
          const once = normalizePath(input, ctx)
          if (!once.ok) return
          const twice = normalizePath(once.path, ctx)
          expect(twice).toEqual(once)
          expect(once.path.startsWith('/')).toBe(true)
          if (once.path !== '/') {
            expect(once.path.endsWith('/')).toBe(false)
            for (const s of once.path.slice(1).split('/')) expect(['', '.', '..']).not.toContain(s)
          }
        },
      ),
    )
  })
})

// Property tests: the limit only keeps a hang from stalling the run; a loaded machine needs seconds.
describe('segment matching', { timeout: 30_000 }, () => {
  it('P2: matching segment by segment is the plain recursive definition, and agrees with picomatch without ** (property)', () => {
    const options = (caseSensitive: boolean) => ({ dot: true, windows: false, nocase: !caseSensitive })
    // The definition, exponential but obviously right: a glob covers a path when it matches the
    // path or an ancestor; `**` matches zero or more segments; other segments are picomatch globs.
    const covers = (glob: readonly string[], path: readonly string[], caseSensitive: boolean): boolean => {
      if (glob.length === 0) return true
      const [head, ...rest] = glob
      if (head === '**') {
        return (
          path.some((_, i) => covers(rest, path.slice(i), caseSensitive)) || covers(rest, [], caseSensitive)
        )
      }
      return (
        path.length > 0 &&
        picomatch(head!, options(caseSensitive))(path[0]!) &&
        covers(rest, path.slice(1), caseSensitive)
      )
    }
    const globSegment = fc.constantFrom(
      'a',
      'b',
      '.c',
      '*',
      '**',
      '*.ts',
      'a*',
      '?b',
      '[ab]',
      '{a,.c}',
      'x*y*',
    )
    const pathSegment = fc.constantFrom('a', 'b', '.c', 'x.ts', 'ab', 'xyzy', 'bb')
    fc.assert(
      fc.property(
        fc.array(globSegment, { minLength: 1, maxLength: 5 }),
        fc.array(pathSegment, { maxLength: 7 }),
        fc.boolean(),
        (globParts, pathParts, caseSensitive) => {
          const compiled = compilePathPattern(`/${globParts.join('/')}`, {
            root: '/r',
            home: undefined,
            caseSensitive,
          })
          if (!compiled.ok) throw new Error(compiled.problem)
          const matched = compiled.compiled.test(`/${pathParts.join('/')}`)
          expect(matched).toBe(covers(globParts, pathParts, caseSensitive))
          // picomatch's whole-glob `**` has quirks (`/**/a` does not match `/a`, `x/*/**` does
          // not match `x/y`); without `**` the two agree on the glob and everything beneath it.
          if (!globParts.includes('**') && pathParts.length > 0) {
            const glob = globParts.join('/')
            expect(matched).toBe(picomatch([glob, `${glob}/**`], options(caseSensitive))(pathParts.join('/')))
          }
        },
      ),
      { numRuns: 2000 },
    )
  })

  it('P2: ** matches zero or more directories, also at the start of an absolute glob', () => {
    const engine = pathEngine([{ decision: 'deny', paths: ['/**/.env', '/**/secrets/**/*.key'] }])
    expect(decisionFor(engine, '/.env')).toBe('deny')
    expect(decisionFor(engine, '/work/repo/.env')).toBe('deny')
    expect(decisionFor(engine, '/secrets/a.key')).toBe('deny')
    expect(decisionFor(engine, '/x/secrets/y/z/a.key')).toBe('deny')
    expect(decisionFor(engine, '/x/secrets/y/z/a.keys')).toBe('allow')
  })

  it('P10: globs that would make a whole-path regular expression backtrack for seconds match in bounded steps', () => {
    // picomatch's single regular expression for these globs takes from tens of milliseconds to
    // minutes on such paths; segment by segment it is (glob segments × path segments) tests.
    const deep = `/${Array.from({ length: 255 }, () => 'a'.repeat(15)).join('/')}`
    const wide = `/${Array.from({ length: 16 }, () => 'a'.repeat(255)).join('/')}`
    let tests = 0
    const counting = (glob: string) => {
      const compiled = compilePathPattern(glob, { root: '/r', home: undefined, caseSensitive: true })
      if (!compiled.ok) throw new Error(compiled.problem)
      return compiled.compiled.test
    }
    for (const glob of ['/**/*a*/**/b', '/**/*a*/*a*/c', '/*a*/*a*/*a*/*a*/**/c', '/**/x*y']) {
      const test = counting(glob)
      expect([glob, test(deep), test(wide)]).toEqual([glob, false, false])
      tests++
    }
    expect(tests).toBe(4)
  })
})

// Property tests: the limit only keeps a hang from stalling the run; a loaded machine needs seconds.
describe('path rules', { timeout: 30_000 }, () => {
  it('P2: a deny on a directory covers every path under it, whatever ./, //, .. and trailing-slash tricks', () => {
    fc.assert(
      fc.property(
        fc.array(segment, { minLength: 1, maxLength: 3 }),
        fc.array(segment, { minLength: 0, maxLength: 3 }),
        fc.constantFrom('plain', 'slash', 'globstar'),
        (dir, below, form) => {
          const denied = `/${dir.join('/')}`
          // Literal segments may hold glob characters; escape them as a rule author would.
          const escaped = `/${dir.map((s) => s.replace(/[*]/g, '\\*')).join('/')}`
          const glob = form === 'plain' ? escaped : form === 'slash' ? `${escaped}/` : `${escaped}/**`
          const engine = pathEngine([{ decision: 'deny', paths: glob }])
          fc.assert(
            fc.property(tricked([...dir, ...below]), (path) => {
              expect(norm(path)).toBe(`${denied}${below.map((s) => `/${s}`).join('')}`)
              expect(decisionFor(engine, path)).toBe('deny')
            }),
            { numRuns: 10 },
          )
        },
      ),
      { numRuns: 60 },
    )
  })

  it('P2: the deny does not reach siblings that merely share a prefix', () => {
    const engine = pathEngine([{ decision: 'deny', paths: '/etc' }])
    expect(decisionFor(engine, '/etc')).toBe('deny')
    expect(decisionFor(engine, '/etc/')).toBe('deny')
    expect(decisionFor(engine, '/etc/ssh/sshd_config')).toBe('deny')
    expect(decisionFor(engine, '/etcetera/passwd')).toBe('allow')
    expect(decisionFor(engine, '/et')).toBe('allow')
    expect(decisionFor(engine, '/etc/../etcetera')).toBe('allow')
  })

  it('P2: relative globs are read against the root, ~ globs against the home, and ** covers dot files', () => {
    const engine = pathEngine([
      { decision: 'deny', paths: ['.env', '~/.ssh', '/**/*.pem'] },
      { decision: 'ask', paths: './secrets/' },
    ])
    expect(decisionFor(engine, '.env')).toBe('deny')
    expect(decisionFor(engine, '/work/repo/.env')).toBe('deny')
    expect(decisionFor(engine, 'sub/.env')).toBe('allow')
    expect(decisionFor(engine, '/home/me/.ssh/id_ed25519')).toBe('deny')
    expect(decisionFor(engine, '~/.ssh/config')).toBe('deny')
    expect(decisionFor(engine, '/tmp/.hidden/key.pem')).toBe('deny')
    expect(decisionFor(engine, 'secrets/db/password')).toBe('ask')
    expect(decisionFor(engine, 'secretsx')).toBe('allow')
  })

  it('P2: a workspace root holding glob characters is matched literally', () => {
    const engine = createPermissionEngine({
      workspaceRoot: '/work/[ab]{c,d}*',
      defaultDecision: 'allow',
      toolArguments: { read_file: { paths: ['path'] } },
      layers: { project: [{ decision: 'deny', tool: 'read_file', paths: 'secret' }] },
    })
    expect(decisionFor(engine, 'secret/x')).toBe('deny')
    expect(decisionFor(engine, '/work/[ab]{c,d}*/secret')).toBe('deny')
    expect(decisionFor(engine, '/work/ac/secret')).toBe('allow')
    expect(decisionFor(engine, '/work/bdxyz/secret')).toBe('allow')
  })

  it('P2: only *, ?, […] and {…} are glob syntax: parentheses and pipes in names are literal', () => {
    const engine = pathEngine([
      { decision: 'deny', paths: ['secrets (old)', 'a|b', 'report(1)*.pdf', 'lit\\*eral'] },
    ])
    expect(decisionFor(engine, 'secrets (old)/key')).toBe('deny')
    expect(decisionFor(engine, 'secrets old/key')).toBe('allow')
    expect(decisionFor(engine, 'a|b')).toBe('deny')
    expect(decisionFor(engine, 'a')).toBe('allow')
    expect(decisionFor(engine, 'report(1) final.pdf')).toBe('deny')
    expect(decisionFor(engine, 'report1 final.pdf')).toBe('allow')
    expect(decisionFor(engine, 'lit*eral')).toBe('deny')
    expect(decisionFor(engine, 'litXeral')).toBe('allow')
  })

  it('P2: .. in a glob is resolved before matching, and a rule cannot be dodged with it', () => {
    const engine = pathEngine([{ decision: 'deny', paths: 'src/../private' }])
    expect(
      engine.explain({ toolName: 'read_file', args: { path: 'private/x' } }).subjects[0]!.decidedBy?.compared,
    ).toEqual({
      kind: 'path',
      toolName: 'read_file',
      toolGlob: 'read_file',
      path: '/work/repo/private/x',
      glob: 'src/../private',
      normalizedGlob: '/work/repo/private',
    })
    expect(decisionFor(engine, 'public/../private/x')).toBe('deny')
  })

  it('P2: caseSensitive: false matches any letter case, folded letters and either Unicode form', () => {
    const insensitive = pathEngine([{ decision: 'deny', paths: ['Secrets/Café', '~/.ssh'] }], {
      caseSensitive: false,
    })
    expect(decisionFor(insensitive, 'SECRETS/CAFÉ/x')).toBe('deny')
    expect(decisionFor(insensitive, 'secrets/cafe\u0301')).toBe('deny')
    // Letters that fold to ASCII ones on such file systems: the long s, the Kelvin sign.
    expect(decisionFor(insensitive, '/home/me/.\u017F\u017Fh/id_rsa')).toBe('deny')
    expect(decisionFor(insensitive, '/HOME/ME/.SSH/\u212Anown_hosts')).toBe('deny')
    expect(decisionFor(insensitive, '/home/me/.sh')).toBe('allow')
    const sensitive = pathEngine([{ decision: 'deny', paths: 'Secrets' }])
    expect(decisionFor(sensitive, 'secrets/x')).toBe('allow')
    expect(decisionFor(sensitive, 'Secrets/x')).toBe('deny')
  })

  it('P2: an allow covers a call only when every path in it is covered', () => {
    const engine = createPermissionEngine({
      workspaceRoot: '/work/repo',
      defaultDecision: 'ask',
      toolArguments: { move: { paths: ['from', 'to'] }, read_many: { paths: ['paths'] } },
      layers: { project: [{ decision: 'allow', tool: ['move', 'read_many'], paths: 'src' }] },
    })
    const decide = (toolName: string, args: object) => engine.decide({ toolName, args }).type
    expect(decide('move', { from: 'src/a', to: 'src/b' })).toBe('allow')
    expect(decide('move', { from: 'src/a', to: '/etc/cron.d/x' })).toBe('ask')
    expect(decide('move', { from: 'src/a' })).toBe('allow')
    expect(decide('move', {})).toBe('ask')
    expect(decide('read_many', { paths: ['src/a', 'src/b'] })).toBe('allow')
    expect(decide('read_many', { paths: ['src/a', '../x'] })).toBe('ask')
    expect(decide('read_many', { paths: [] })).toBe('ask')
  })

  it('P10: a path argument that cannot be read matches deny and ask rules and never an allow', () => {
    const engine = pathEngine([
      { decision: 'allow', paths: '/**' },
      { decision: 'deny', paths: '/nowhere' },
    ])
    const deny = pathEngine([{ decision: 'deny', paths: '/nowhere' }])
    const allowOnly = pathEngine([{ decision: 'allow', paths: '/**' }], { defaultDecision: 'ask' })
    const hostile = new Proxy(
      {},
      {
        get() {
          throw new Error('trap')
        },
      },
    )
    const values: unknown[] = [
      new Date(0),
      new URL('file:///etc/passwd'),
      42,
      { path: '/x' },
      ['/ok', 7],
      Array.from({ length: 300 }, () => '/ok'),
      '~root/.ssh/id_rsa',
      'a\0b',
    ]
    for (const value of values) {
      // The first rule of the layer is an allow of everything: it does not vouch for what it cannot read.
      expect(decisionFor(engine, value)).toBe('deny')
      expect(decisionFor(deny, value)).toBe('deny')
      expect(decisionFor(allowOnly, value)).toBe('ask')
    }
    expect(deny.decide({ toolName: 'read_file', args: hostile }).type).toBe('deny')
    const getter = Object.defineProperty({}, 'path', {
      enumerable: true,
      get() {
        throw new Error('boom')
      },
    })
    expect(deny.explain({ toolName: 'read_file', args: getter }).subjects[0]!.subject).toEqual({
      kind: 'unreadable',
      argument: 'path',
      expected: 'path',
      problem: 'reading it threw',
    })
    expect(decisionFor(deny, undefined)).toBe('allow')
    expect(decisionFor(deny, null)).toBe('allow')
  })

  it('P10: paths beyond PATH_MAX, NAME_MAX or 256 levels fail closed, so matching time stays bounded', () => {
    const engine = pathEngine([{ decision: 'deny', paths: '/nowhere' }])
    const explainPath = (path: string) =>
      engine.explain({ toolName: 'read_file', args: { path } }).subjects[0]!.subject
    expect(explainPath(`/${'a/'.repeat(2100)}x`)).toMatchObject({
      kind: 'unreadable',
      problem: expect.stringMatching(/cannot be checked: it is longer than 4096 characters$/),
    })
    expect(explainPath(`/tmp/${'n'.repeat(256)}`)).toMatchObject({
      problem: expect.stringMatching(/a name in it is longer than 255 characters$/),
    })
    expect(explainPath(`/${'d/'.repeat(256)}x`)).toMatchObject({
      problem: expect.stringMatching(/it is deeper than 256 directories$/),
    })
    expect(decisionFor(engine, `/${'d/'.repeat(256)}x`)).toBe('deny')
    expect(explainPath(`/tmp/${'n'.repeat(255)}`)).toMatchObject({ kind: 'path' })
    expect(explainPath(`/${'d/'.repeat(255)}x`)).toMatchObject({ kind: 'path' })
    // Resolving `..` first: a long detour that lands on a short path is fine.
    expect(explainPath(`/${'d/'.repeat(300)}${'../'.repeat(300)}etc`)).toMatchObject({ normalized: '/etc' })
  })

  it('P10: a getter that answers differently on each read is read once per decision', () => {
    const engine = pathEngine([{ decision: 'deny', paths: '/etc' }])
    let reads = 0
    const args = Object.defineProperty({}, 'path', {
      enumerable: true,
      get() {
        reads++
        return reads % 2 === 1 ? '/etc/passwd' : '/tmp/x'
      },
    })
    expect(engine.decide({ toolName: 'read_file', args }).type).toBe('deny')
    expect(reads).toBe(1)
    const explained = engine.explain({ toolName: 'read_file', args })
    expect(reads).toBe(2)
    expect(explained.decision).toBe('allow')
    expect(explained.subjects.map((s) => s.subject)).toEqual([
      { kind: 'path', argument: 'path', value: '/tmp/x', normalized: '/tmp/x' },
    ])
  })
})
