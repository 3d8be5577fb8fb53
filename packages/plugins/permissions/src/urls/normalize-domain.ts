/** A domain rule: a host name, or `*.` and a host name for its subdomains. */
const DOMAIN = /^(\*\.)?[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*$/

/**
 * The form domains are compared in: the host as the WHATWG URL parser writes it (lower case,
 * international names in punycode, no trailing dot), or undefined when `text` is no host name.
 */
export function normalizeHost(text: string): string | undefined {
  let host: string
  try {
    host = new URL(`http://${text}/`).hostname
  } catch {
    return undefined
  }
  if (host.endsWith('.')) host = host.slice(0, -1)
  return host === '' ? undefined : host
}

/** Why a domain written in a rule is not one (`example.com`, `*.example.com`), or undefined. */
export function domainProblem(text: string): string | undefined {
  const wildcard = text.startsWith('*.')
  const host = normalizeHost(wildcard ? text.slice(2) : text)
  if (host === undefined || /[/:@?#[\]]/.test(text))
    return 'a domain is a host name, like example.com or *.example.com (no scheme, port or path)'
  if (!DOMAIN.test(`${wildcard ? '*.' : ''}${host}`))
    return 'a domain is a host name, like example.com or *.example.com'
  return undefined
}

/** Whether `host` (normalized) is `domain` or, for `*.domain`, one of its subdomains. */
export function matchesDomain(host: string, domain: string): boolean {
  if (domain.startsWith('*.')) {
    const base = normalizeHost(domain.slice(2))
    return base !== undefined && host.endsWith(`.${base}`)
  }
  return host === normalizeHost(domain)
}
