/**
 * The path glob a Claude Code `Read(…)` / `Edit(…)` specifier stands for, in this package's glob
 * form (absolute, `~/…`, or relative to the workspace root). Claude Code reads these patterns as
 * gitignore does (https://code.claude.com/docs/en/permissions#read-and-edit):
 * - `//path` is absolute (`//etc/**` is `/etc/**`);
 * - `~/path` is under the home directory;
 * - `/path` is relative to the project root (the directory holding `.claude/`), not absolute;
 * - `path` or `./path` is relative to the current directory (the workspace root here);
 * - a pattern with no `/` but a trailing one matches at any depth below its anchor
 *   (`.env` and `**\/.env` are the same rule), one with a `/` is anchored.
 * A trailing `/` (gitignore's "directories only") is dropped: rules see strings, not file types.
 */
export function claudePathPattern(
  specifier: string,
  projectRoot: string | undefined,
): { readonly glob: string } | { readonly problem: string } {
  if (specifier.startsWith('!'))
    return { problem: 'negated patterns ("!…") are not supported in permission rules' }
  let pattern = specifier
  while (pattern.length > 1 && pattern.endsWith('/') && !pattern.endsWith('//'))
    pattern = pattern.slice(0, -1)
  if (pattern.startsWith('//')) return { glob: pattern.slice(1) }
  if (pattern === '~' || pattern.startsWith('~/')) return { glob: pattern }
  if (pattern.startsWith('~')) return { problem: '"~user" patterns are not supported' }
  if (pattern.startsWith('/')) {
    if (projectRoot === undefined) {
      return { problem: 'a "/path" pattern is relative to the project root, and the rule has no projectRoot' }
    }
    return { glob: `${projectRoot === '/' ? '' : projectRoot}${pattern}` }
  }
  if (pattern.startsWith('./')) return { glob: pattern.slice(2) === '' ? '.' : pattern.slice(2) }
  // gitignore: no slash left in the pattern, so it matches at any depth.
  return { glob: pattern.includes('/') ? pattern : `**/${pattern}` }
}
