import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { arch, cpus, loadavg, platform, release, totalmem } from 'node:os'

export interface Machine {
  readonly cpuModel: string
  readonly cores: number
  readonly node: string
  readonly v8: string
  readonly os: string
  readonly totalMemoryMB: number
  readonly date: string
  readonly loadavgStart: readonly number[]
  readonly commit: string
}

function gitCommit(): string {
  try {
    const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim()
    const dirty = execFileSync('git', ['status', '--porcelain'], { encoding: 'utf8' }).trim() !== ''
    return dirty ? `${head} (with uncommitted changes)` : head
  } catch {
    return 'unknown'
  }
}

export function describeMachine(): Machine {
  const cores = cpus()
  return {
    cpuModel: cores[0]?.model.trim() ?? 'unknown',
    cores: cores.length,
    node: process.version,
    v8: process.versions.v8,
    os: `${platform()} ${release()} ${arch()}`,
    totalMemoryMB: Math.round(totalmem() / 2 ** 20),
    date: new Date().toISOString(),
    loadavgStart: loadavg(),
    commit: gitCommit(),
  }
}

/** Installed versions of the peers (read from the bench's own node_modules). */
export function peerVersions(names: readonly string[]): Record<string, string> {
  const versions: Record<string, string> = {}
  for (const name of names) {
    try {
      const url = new URL(`../node_modules/${name}/package.json`, import.meta.url)
      versions[name] = (JSON.parse(readFileSync(url, 'utf8')) as { version: string }).version
    } catch {
      versions[name] = 'not installed'
    }
  }
  return versions
}
