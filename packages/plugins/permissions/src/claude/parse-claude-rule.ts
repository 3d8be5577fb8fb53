import { BASH_AMBIGUOUS, BASH_PARAMETERS, SPECIFIER_PARAMETERS, splitParameter } from './claude-parameters.ts'

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

/** `Tool(param:value)`: the call's top-level parameter `name` must match `value` (`*`: any text). */
export interface ClaudeParameter {
  readonly name: string
  readonly value: string
}

/** A Claude Code permission rule string, read into its parts. */
export type ClaudeRule =
  | {
      readonly kind: 'tool'
      /** The Claude Code tool name (`Bash`, `Read`, …). */
      readonly tool: string
      /**
       * What the tool's own specifier syntax narrows it to (a command or path pattern, a domain),
       * or undefined for the whole tool or a parameter rule. `Bash(command:npm test *)` is read
       * as `Bash(npm test *)`, `Read(file_path:./src/**)` as `Read(./src/**)`.
       */
      readonly specifier: string | undefined
      readonly specifierKind: 'command' | 'path' | 'domain' | undefined
      /** A `Tool(param:value)` rule on any other parameter. */
      readonly parameter: ClaudeParameter | undefined
    }
  | {
      readonly kind: 'mcp'
      /** The tool-name glob it stands for: `mcp__server__*` for a whole server. */
      readonly toolGlob: string
      readonly parameter: ClaudeParameter | undefined
    }

const TOOL_NAME = /^[A-Za-z0-9_-]+$/
/** Claude Code's subagent tool (`Task` before it was renamed): `Agent(Explore)` names a subagent type. */
const SUBAGENT_TOOLS: ReadonlySet<string> = new Set(['Agent', 'Task'])
/** An MCP rule: `mcp__server`, `mcp__server__*`, `mcp__server__tool`, `mcp__server__get_*`. */
const MCP_RULE = /^mcp__([A-Za-z0-9-]+(?:_[A-Za-z0-9-]+)*)(?:__([A-Za-z0-9_*-]+))?$/

/** The parameter of `Tool(name:value)`, or the problem with it. */
function readParameter(
  tool: string,
  parameter: ClaudeParameter,
): ClaudeParameter | { readonly problem: string } {
  if (parameter.value === '') {
    return {
      problem: `"${tool}(${parameter.name}:)" has an empty value; write "${tool}(${parameter.name}:*)" for any value the call sets`,
    }
  }
  return parameter
}

/**
 * Reads the specifier of `Tool(specifier)`: the tool's own syntax (a command or path pattern,
 * `domain:<host>`), or a parameter rule `name:value`.
 */
function readToolSpecifier(tool: string, specifier: string): ClaudeRule | { readonly problem: string } {
  const specifierKind = CLAUDE_SPECIFIERS[tool]
  const split = splitParameter(specifier)
  const parameterRule = (parameter: ClaudeParameter): ClaudeRule | { readonly problem: string } => {
    const read = readParameter(tool, parameter)
    if ('problem' in read) return read
    // A parameter the tool's own syntax is about is read with that syntax (shell- or path-aware).
    if (specifierKind === 'command' || specifierKind === 'path') {
      if (SPECIFIER_PARAMETERS[specifierKind].has(read.name))
        return { kind: 'tool', tool, specifier: read.value, specifierKind, parameter: undefined }
    }
    return { kind: 'tool', tool, specifier: undefined, specifierKind, parameter: read }
  }
  switch (specifierKind) {
    case undefined:
      // `Agent(Explore)`: the subagent of that type (Claude Code's subagent rules).
      if (split === undefined && SUBAGENT_TOOLS.has(tool))
        return parameterRule({ name: 'subagent_type', value: specifier })
      if (split === undefined) {
        return {
          problem: `"${tool}(…)" takes a parameter rule here, "${tool}(<parameter>:<value>)" (only ${Object.keys(CLAUDE_SPECIFIERS).join(', ')} have a specifier syntax of their own; write "${tool}" for the whole tool)`,
        }
      }
      return parameterRule(split)
    case 'command':
      if (split === undefined || !BASH_PARAMETERS.has(split.name))
        return { kind: 'tool', tool, specifier, specifierKind, parameter: undefined }
      if (BASH_AMBIGUOUS.has(split.name) && split.value === '*') {
        return {
          problem: `"${tool}(${specifier})" is ambiguous: the legacy prefix rule for the "${split.name}" program, or a rule on the "${split.name}" parameter; write "${tool}(${split.name} *)" for the program${split.name === 'command' ? `, or "${tool}" for every command` : `, or "${tool}(${split.name}:<value>)" for the parameter`}`,
        }
      }
      return parameterRule(split)
    case 'path':
      return split === undefined
        ? { kind: 'tool', tool, specifier, specifierKind, parameter: undefined }
        : parameterRule(split)
    case 'domain':
      if (split?.name === 'domain')
        return { kind: 'tool', tool, specifier, specifierKind, parameter: undefined }
      if (split === undefined) {
        return {
          problem: `a ${tool} specifier is "domain:<host>" or "<parameter>:<value>" (got ${JSON.stringify(specifier)})`,
        }
      }
      return parameterRule(split)
    default: {
      const never: never = specifierKind
      return never
    }
  }
}

/**
 * Reads a rule string in Claude Code's syntax: `Tool` or `Tool(specifier)`, or an MCP rule
 * `mcp__server[__tool]` (a `*` may appear only in the tool part). Returns the problem, in words,
 * when it is not one.
 */
export function parseClaudeRule(text: string): ClaudeRule | { readonly problem: string } {
  if (text.trim() !== text) return { problem: 'a rule must not start or end with blanks' }
  if (text.startsWith('mcp__')) {
    const open = text.indexOf('(')
    const name = open < 0 ? text : text.slice(0, open)
    const m = MCP_RULE.exec(name)
    if (m === null) {
      return {
        problem:
          'an MCP rule is mcp__<server>, mcp__<server>__* or mcp__<server>__<tool> (letters, digits, "-" and "_"; "*" only in the tool part), optionally with a parameter rule "(<parameter>:<value>)"',
      }
    }
    const tool = m[2]
    const toolGlob = tool === undefined ? `mcp__${m[1]}__*` : `mcp__${m[1]}__${tool}`
    if (open < 0) return { kind: 'mcp', toolGlob, parameter: undefined }
    if (!text.endsWith(')')) return { problem: `a rule that opens "${name}(" must end with ")"` }
    const split = splitParameter(text.slice(open + 1, -1))
    if (split === undefined)
      return {
        problem: `an MCP rule takes only a parameter rule in parentheses, "${name}(<parameter>:<value>)"`,
      }
    const parameter = readParameter(name, split)
    return 'problem' in parameter ? parameter : { kind: 'mcp', toolGlob, parameter }
  }
  const open = text.indexOf('(')
  if (open < 0) {
    if (!TOOL_NAME.test(text))
      return { problem: 'a rule is a tool name (letters, digits, "-", "_") or Tool(specifier)' }
    return {
      kind: 'tool',
      tool: text,
      specifier: undefined,
      specifierKind: CLAUDE_SPECIFIERS[text],
      parameter: undefined,
    }
  }
  const tool = text.slice(0, open)
  if (!TOOL_NAME.test(tool))
    return { problem: 'a rule is Tool(specifier), with a tool name of letters, digits, "-" and "_"' }
  if (!text.endsWith(')')) return { problem: `a rule that opens "${tool}(" must end with ")"` }
  const specifier = text.slice(open + 1, -1)
  if (specifier === '')
    return { problem: `"${tool}()" has an empty specifier; write "${tool}" for every use of the tool` }
  return readToolSpecifier(tool, specifier)
}
