/**
 * The source without its whole-line `//` comments, as the engine gets it: compiling a fresh
 * sandbox's prelude is most of what a run costs before the program starts, and the engine would
 * scan every comment again on every run. Only lines holding nothing but a comment go (the prelude
 * sources have no multi-line strings or templates, so such a line is never inside one).
 */
export function withoutCommentLines(source: string): string {
  return source
    .split('\n')
    .filter((line) => !/^\s*\/\//.test(line))
    .join('\n')
}
