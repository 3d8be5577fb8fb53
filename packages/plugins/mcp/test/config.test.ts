import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createContext, silentLogger } from '@deepseek-ai/dsh-context'
import { installTools } from '@deepseek-ai/dsh-tools'
import { McpPluginError, mcpTools, mcpToolName, readMcpConfig, TOOL_NAME_RULE } from '../src/index.ts'

const WHERE = 'mcpTools(ctx, config)'

function configError(config: unknown): string {
  try {
    readMcpConfig(WHERE, config)
  } catch (error) {
    expect(McpPluginError.isInstance(error)).toBe(true)
    expect((error as McpPluginError).code).toBe('INVALID_CONFIG')
    return (error as Error).message
  }
  throw new Error('the config was accepted')
}

describe('config', () => {
  it('T8: a valid config is read with zod; timeoutMs stays optional', () => {
    expect(
      readMcpConfig(WHERE, {
        servers: {
          files: { transport: 'stdio', command: 'files-mcp', args: ['--root', '.'], env: { A: '1' } },
          'search-api': {
            transport: 'http',
            url: 'https://example.test/mcp',
            headers: { authorization: 'x' },
            timeoutMs: 5,
          },
        },
      }),
    ).toEqual({
      servers: {
        files: { transport: 'stdio', command: 'files-mcp', args: ['--root', '.'], env: { A: '1' } },
        'search-api': {
          transport: 'http',
          url: 'https://example.test/mcp',
          headers: { authorization: 'x' },
          timeoutMs: 5,
        },
      },
    })
  })

  it('T8: every problem is named by its path and the value found there', () => {
    expect(configError(null)).toBe(
      `${WHERE}: config: Invalid input: expected object, received null (got null)`,
    )
    expect(configError({ servers: {} })).toBe(
      `${WHERE}: config.servers: name at least one server (got an object)`,
    )
    expect(configError({ servers: { a: { transport: 'ws', url: 'x' } } })).toBe(
      `${WHERE}: config.servers.a.transport: Invalid discriminator value. Expected 'stdio' | 'http' (got the string "ws")`,
    )
    expect(configError({ servers: { a: { transport: 'http', url: 'ftp://x', extra: 1 } } })).toBe(
      `${WHERE}: config.servers.a.url: must be an http: or https: URL (got the string "ftp://x"); config.servers.a: Unrecognized key: "extra"`,
    )
    expect(configError({ servers: { a: { transport: 'stdio', command: 'x', timeoutMs: 0.5 } } })).toBe(
      `${WHERE}: config.servers.a.timeoutMs: Invalid input: expected int, received number (got the number 0.5)`,
    )
  })

  it('T8: server names that would make tool names ambiguous are refused', () => {
    for (const name of ['a__b', '_a', 'a_', 'a.b', '', 'x'.repeat(33)]) {
      expect(configError({ servers: { [name]: { transport: 'stdio', command: 'x' } } })).toMatch(
        new RegExp(
          `^${WHERE.replace(/[()]/g, '\\$&')}: config\\.servers\\.${name.replace('.', '\\.')}: invalid server name \\(`,
        ),
      )
    }
  })

  it('T8: the plugin refuses a ctx that is not one, or one without ctx.tools, before starting anything', () => {
    const config = { servers: { a: { transport: 'stdio', command: '/nonexistent' } } } as const
    expect(() => mcpTools({} as never, config)).toThrow(
      expect.objectContaining({
        code: 'INVALID_ARGUMENT',
        message: `${WHERE}: ctx must be a context from createContext(), got an object`,
      }),
    )
    const bare = createContext({ logger: silentLogger })
    expect(() => mcpTools(bare, config)).toThrow(
      expect.objectContaining({
        code: 'NOT_INSTALLED',
        message: `${WHERE}: scope "root" has no ctx.tools; call installTools(ctx) first`,
      }),
    )
    installTools(bare)
    expect(() => mcpTools(bare, { servers: { a: { transport: 'stdio', command: '' } } })).toThrow(
      McpPluginError,
    )
    expect(bare.tools.list()).toEqual([])
  })
})

describe('tool names', () => {
  const serverName = fc
    .stringMatching(/^[A-Za-z0-9-]{1,10}(?:_[A-Za-z0-9-]{1,10}){0,2}$/)
    .filter((s) => s.length <= 32)

  it('T1: every MCP name maps to a name the registry accepts, deterministically, prefixed by mcp__ and its server (as Claude Code names them)', () => {
    fc.assert(
      fc.property(serverName, fc.string({ minLength: 1, maxLength: 200, unit: 'binary' }), (server, tool) => {
        const name = mcpToolName(server, tool)
        expect(name).toMatch(TOOL_NAME_RULE)
        expect(name.startsWith(`mcp__${server}__`)).toBe(true)
        expect(mcpToolName(server, tool)).toBe(name)
      }),
    )
  })

  it('T1: a name that is already valid and short enough is kept as it is', () => {
    fc.assert(
      fc.property(serverName, fc.stringMatching(/^[A-Za-z0-9_-]{1,20}$/), (server, tool) => {
        expect(mcpToolName(server, tool)).toBe(`mcp__${server}__${tool}`)
      }),
    )
  })

  it('T1: names past 64 characters are cut and end with a hash of the full MCP name', () => {
    const a = mcpToolName('srv', `${'a'.repeat(70)}_one`)
    const b = mcpToolName('srv', `${'a'.repeat(70)}_two`)
    expect(a).toHaveLength(64)
    expect(b).toHaveLength(64)
    expect(a).not.toBe(b)
    expect(a.slice(0, 55)).toBe(b.slice(0, 55))
    expect(mcpToolName('srv', 'read.file/v2')).toBe('mcp__srv__read_file_v2')
  })
})
