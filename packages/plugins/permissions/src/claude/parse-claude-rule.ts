/**
 * What a Claude Code tool's specifier (`Tool(specifier)`) is about, by tool name: a shell command
 * (`Bash(npm run test *)`), a path pattern in gitignore syntax (`Read(./src/**)`), a domain
 * (`WebFetch(domain:example.com)`). Tools not listed take no specifier here.
 * See https://code.claude.com/docs/en/permissions#tool-specific-permission-rules
 */
export const CLAUDE_SPECIFIERS: Readonly<Record<string, 'command' | 'path' | 'domain'>> = {
  Bash: 'command',
  Read: 'path',
  Edit: 'path',
  Write: 'path',
  MultiEdit: 'path',
  NotebookEdit: 'path',
  NotebookRead: 'path',
  Glob: 'path',
  Grep: 'path',
  LS: 'path',
  WebFetch: 'domain',
}

/** A Claude Code permission rule string, read into its parts. */
export type ClaudeRule =
  | {
      readonly kind: 'tool'
      /** The Claude Code tool name (`Bash`, `Read`, …). */
      readonly tool: string
      /** What follows in parentheses, or undefined for the whole tool. */
      readonly specifier: string | undefined
      readonly specifierKind: 'command' | 'path' | 'domain' | undefined
    }
  | {
      readonly kind: 'mcp'
      /** The tool-name glob it stands for: `mcp__server__*` for a whole server. */
      readonly toolGlob: string
    }

const TOOL_NAME = /^[A-Za-z0-9_-]+$/
/** An MCP rule: `mcp__server`, `mcp__server__*`, `mcp__server__tool`, `mcp__server__get_*`. */
const MCP_RULE = /^mcp__([A-Za-z0-9-]+(?:_[A-Za-z0-9-]+)*)(?:__([A-Za-z0-9_*-]+))?$/

/**
 * Reads a rule string in Claude Code's syntax: `Tool` or `Tool(specifier)`, or an MCP rule
 * `mcp__server[__tool]` (a `*` may appear only in the tool part). Returns the problem, in words,
 * when it is not one.
 */
export function parseClaudeRule(text: string): ClaudeRule | { readonly problem: string } {
  if (text.trim() !== text) return { problem: 'a rule must not start or end with blanks' }
  if (text.startsWith('mcp__')) {
    const m = MCP_RULE.exec(text)
    if (m === null) {
      return {
        problem:
          'an MCP rule is mcp__<server>, mcp__<server>__* or mcp__<server>__<tool> (letters, digits, "-" and "_"; "*" only in the tool part; no parentheses)',
      }
    }
    const tool = m[2]
    return { kind: 'mcp', toolGlob: tool === undefined ? `mcp__${m[1]}__*` : `mcp__${m[1]}__${tool}` }
  }
  const open = text.indexOf('(')
  if (open < 0) {
    if (!TOOL_NAME.test(text))
      return { problem: 'a rule is a tool name (letters, digits, "-", "_") or Tool(specifier)' }
    return { kind: 'tool', tool: text, specifier: undefined, specifierKind: CLAUDE_SPECIFIERS[text] }
  }
  const tool = text.slice(0, open)
  if (!TOOL_NAME.test(tool))
    return { problem: 'a rule is Tool(specifier), with a tool name of letters, digits, "-" and "_"' }
  if (!text.endsWith(')')) return { problem: `a rule that opens "${tool}(" must end with ")"` }
  const specifier = text.slice(open + 1, -1)
  if (specifier === '')
    return { problem: `"${tool}()" has an empty specifier; write "${tool}" for every use of the tool` }
  const specifierKind = CLAUDE_SPECIFIERS[tool]
  if (specifierKind === undefined) {
    return {
      problem: `"${tool}(…)" rules are not supported: only ${Object.keys(CLAUDE_SPECIFIERS).join(', ')} take a specifier here (write "${tool}" for the whole tool)`,
    }
  }
  if (specifierKind === 'domain' && !specifier.startsWith('domain:')) {
    return { problem: `a ${tool} specifier is "domain:<host>" (got ${JSON.stringify(specifier)})` }
  }
  return { kind: 'tool', tool, specifier, specifierKind }
}
