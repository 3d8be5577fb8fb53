/** The registry's rule for tool names (what OpenAI-style providers accept). */
export const TOOL_NAME_RULE = /^[A-Za-z0-9_-]{1,64}$/

const MAX_LENGTH = 64
const HASH_LENGTH = 8

/** FNV-1a (32 bit) of the UTF-16 code units, as 8 hex digits: short, stable across runs and copies. */
function hash(text: string): string {
  let h = 0x811c9dc5
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i)
    h = Math.imul(h, 0x01000193) >>> 0
  }
  return h.toString(16).padStart(HASH_LENGTH, '0')
}

/**
 * The dsh name of MCP tool `tool` of server `server`: `mcp__server__tool`, the name Claude Code
 * gives it (https://code.claude.com/docs/en/permissions#mcp), so that a permission rule written
 * for Claude Code (`mcp__server`, `mcp__server__tool`) names the same tools here. Every character
 * the registry does not accept is replaced by `_`, as Claude Code does. A name longer than 64
 * characters is cut and ends with `_` and a hash of the MCP name, so it stays unique and stays the
 * same across reconnects and `list_changed`. The mapping depends on nothing but the two names; two
 * MCP names that map to the same dsh name (`a.b` and `a_b`) are a collision, which the caller reports.
 */
export function toolName(server: string, tool: string): string {
  const full = `mcp__${server}__${tool.replace(/[^A-Za-z0-9_-]/g, '_')}`
  if (full.length <= MAX_LENGTH) return full
  return `${full.slice(0, MAX_LENGTH - HASH_LENGTH - 1)}_${hash(tool)}`
}
