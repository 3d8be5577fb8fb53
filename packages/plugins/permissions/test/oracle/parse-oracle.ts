import { createRequire } from 'node:module'
import { Language, Parser, type Node } from 'web-tree-sitter'
import { RESERVED } from '../../src/shell/parse-commands.ts'
import { splitCommand } from '../../src/commands/split-command.ts'

/**
 * The parse oracle: tree-sitter-bash (the tree-sitter project's bash grammar, run as WebAssembly
 * by web-tree-sitter), a second opinion on where commands are for the parts the execution oracle
 * cannot reach — substitutions in words that are never expanded, branches never taken, function
 * bodies never called. Every `command` node of a tree without syntax errors must be covered: a
 * part of the split names the same program (its last path segment), or a part is hidden. The
 * generator for this oracle leaves out what tree-sitter-bash reads differently from bash.
 *
 * (sh-syntax, mvdan/sh compiled to WASM, was the first candidate: its `parse` returns statements
 * whose commands serialize as empty objects, so it cannot list call expressions.)
 */
export interface ParseOracle {
  /** The commands tree-sitter finds, or undefined when its tree has an error (bash would reject it). */
  readonly commands: (command: string) => readonly ParsedCall[] | undefined
}

export interface ParsedCall {
  /** The program word as written. */
  readonly text: string
  /** Its literal value after quote removal, or undefined when the shell computes it. */
  readonly name: string | undefined
}

/** The literal value of a word node, or undefined when part of it is computed. */
function literal(node: Node): string | undefined {
  switch (node.type) {
    case 'word':
    case 'number':
      return node.text.replace(/\\(.)/gs, '$1')
    case 'raw_string':
      return node.text.slice(1, -1)
    case 'string': {
      if (node.namedChildren.some((c) => c?.type !== 'string_content')) return undefined
      return node.text.slice(1, -1).replace(/\\([$`"\\\n])/g, '$1')
    }
    case 'concatenation': {
      let out = ''
      for (const child of node.namedChildren) {
        const value = child === null ? undefined : literal(child)
        if (value === undefined) return undefined
        out += value
      }
      // A bare concatenation of quotes and words: what is between its named children is literal too.
      return node.namedChildren.map((c) => c?.text ?? '').join('') === node.text ? out : undefined
    }
    default:
      return undefined
  }
}

/** The text of an arithmetic expansion, `$((…))`. */
const ARITHMETIC = /^\$\(\([\s\S]*\)\)$/

export async function startParseOracle(): Promise<ParseOracle> {
  await Parser.init()
  const require = createRequire(import.meta.url)
  const bash = await Language.load(require.resolve('tree-sitter-bash/tree-sitter-bash.wasm'))
  const parser = new Parser()
  parser.setLanguage(bash)
  return {
    commands(command) {
      const tree = parser.parse(command)
      if (tree === null) return undefined
      try {
        if (tree.rootNode.hasError) return undefined
        const calls: ParsedCall[] = []
        const visit = (node: Node): void => {
          // `$((…))` is arithmetic to bash; after a `[` in a `[[ … ]]` pattern tree-sitter-bash reads
          // it as a command substitution holding a subshell (seen: `[[ a == [$((1+2)) ]]` gave a
          // command "1+2", which bash never runs).
          if (node.type === 'command_substitution' && ARITHMETIC.test(node.text)) return
          if (node.type === 'command') {
            const name = node.childForFieldName('name')
            const word = name?.namedChildren[0]
            if (word !== undefined && word !== null) calls.push({ text: word.text, name: literal(word) })
          }
          for (const child of node.namedChildren) if (child !== null) visit(child)
        }
        visit(tree.rootNode)
        return calls
      } finally {
        tree.delete()
      }
    },
  }
}

export type ParseCoverage =
  | { readonly kind: 'covered' }
  | { readonly kind: 'skipped'; readonly why: 'tree-sitter rejects it' | 'the splitter rejects it' }
  | { readonly kind: 'missed'; readonly missing: readonly ParsedCall[]; readonly parts: readonly string[] }

/**
 * Bash's reserved words (the splitter's own list, and `]]`). tree-sitter-bash, lost in quoting it
 * reads differently from bash (seen: `$'\z19+\\'` before an `if … else … fi`), can report `else` or `fi` as the name of a command;
 * bash never runs a reserved word as a program where it is one, and the execution oracle (real
 * bash) judges what runs. Such a name is tree-sitter's misreading, not a miss.
 */
const isReserved = (name: string): boolean => RESERVED.has(name) || name === ']]'

/** Whether every command tree-sitter finds with a literal program name is among the split's parts. */
export function parseCoverage(oracle: ParseOracle, command: string): ParseCoverage {
  const calls = oracle.commands(command)
  if (calls === undefined) return { kind: 'skipped', why: 'tree-sitter rejects it' }
  const split = splitCommand(command)
  if (!split.ok) return { kind: 'skipped', why: 'the splitter rejects it' }
  if (split.parts.some((p) => p.hidden !== undefined)) return { kind: 'covered' }
  const names = split.parts.flatMap((p) => p.readings.map((r) => r.words[0]!.value))
  // tree-sitter sometimes ends a word early (before an escaped character after a quote): a
  // program whose name starts with tree-sitter's is taken for the same command.
  const missing = calls.filter((c) => {
    if (c.name === undefined || isReserved(c.name)) return false
    const name = c.name.slice(c.name.lastIndexOf('/') + 1)
    return !names.some((n) => n.startsWith(name))
  })
  return missing.length === 0
    ? { kind: 'covered' }
    : { kind: 'missed', missing, parts: split.parts.map((p) => JSON.stringify(p.words)) }
}
