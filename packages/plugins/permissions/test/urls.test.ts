import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { createPermissionEngine, type PermissionDecision } from '@deepseek-ai/dsh-permissions'

function fetchEngine(decision: PermissionDecision, domains: string, defaultDecision: PermissionDecision) {
  const engine = createPermissionEngine({
    workspaceRoot: '/repo',
    defaultDecision,
    toolArguments: { fetch: { url: 'url' } },
    layers: { project: [{ decision, tool: 'fetch', domains }] },
  })
  return (url: string) => engine.decide({ toolName: 'fetch', args: { url } }).type
}

/** A DNS label: letters, digits and inner hyphens. */
const label = fc.stringMatching(/^[a-z0-9](?:[a-z0-9-]{0,8}[a-z0-9])?$/)

describe('URL rules', () => {
  it('URLs: *.example.com covers the hosts below example.com, never example.com itself nor a host that only ends in its name', () => {
    const allow = fetchEngine('allow', '*.example.com', 'ask')
    expect(allow('https://api.example.com/x')).toBe('allow')
    expect(allow('https://a.b.example.com:8443/')).toBe('allow')
    expect(allow('https://API.Example.COM./')).toBe('allow')
    for (const url of [
      'https://example.com/',
      'https://evilexample.com/',
      'https://api-example.com/',
      'https://example.com.evil.org/',
      'https://api.example.com@evilexample.com/',
    ]) {
      expect([url, allow(url)]).toEqual([url, 'ask'])
    }
    // The same boundary for a deny: it stops the subdomains and nothing else.
    const deny = fetchEngine('deny', '*.example.com', 'allow')
    expect(deny('https://api.example.com/')).toBe('deny')
    expect(deny('https://evilexample.com/')).toBe('allow')
  })

  it('URLs: for any label, *.example.com allows label.example.com and never labelexample.com', () => {
    const allow = fetchEngine('allow', '*.example.com', 'deny')
    fc.assert(
      fc.property(label, (name) => {
        expect(allow(`https://${name}.example.com/`)).toBe('allow')
        expect(allow(`https://${name}example.com/`)).toBe('deny')
      }),
    )
  })
})
