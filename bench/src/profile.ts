import { writeFileSync } from 'node:fs'
import { Session } from 'node:inspector/promises'
import { findCase } from './cases/registry.ts'

// `node dist/profile.js [case] [--seconds N] [--top N] [--out file] [--cpu-only]`: where a timed case's CPU and
// bytes go. Warms the case up, then runs it for N seconds under V8's CPU profiler and its sampling
// heap profiler (started after the warm-up, so neither the JIT's first passes nor module loading
// show), and prints self time and sampled allocation grouped by package, then the top functions.
// Shares, not absolute figures: they stay meaningful on a loaded machine. Not part of `pnpm bench`.
// `--cpu-only` leaves the heap profiler off: sampling every 512 bytes makes the case about four
// times slower and overcharges the functions that allocate (natives above all) in the CPU shares.

interface ProfileNode {
  readonly id: number
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number }
  readonly children?: readonly number[]
}
interface CpuProfile {
  readonly nodes: readonly ProfileNode[]
  readonly samples: readonly number[]
}
interface HeapNode {
  readonly callFrame: ProfileNode['callFrame']
  readonly selfSize: number
  readonly children: readonly HeapNode[]
}

const args = process.argv.slice(2)
const flag = (name: string, fallback: string) => {
  const at = args.indexOf(name)
  return at === -1 ? fallback : (args[at + 1] ?? fallback)
}
const caseId = args[0] !== undefined && !args[0].startsWith('--') ? args[0] : 'dsh.step.100.parallel.memory'
const seconds = Number(flag('--seconds', '5'))
const top = Number(flag('--top', '30'))
const out = flag('--out', '')
const cpuOnly = args.includes('--cpu-only')

/** Which package (or runtime part) a frame's script belongs to. */
function groupOf(url: string, name: string): string {
  const pkg = /\/packages\/(?:[^/]+\/)*?([^/]+)\/dist\//.exec(url)
  if (pkg) return `dsh-${pkg[1]}`
  const dep = /\/node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?((?:@[^/]+\/)?[^/]+)\//.exec(url)
  if (dep) return dep[1]!
  if (url.includes('/bench/')) return 'bench'
  if (url.startsWith('node:')) return 'node'
  if (url === '') return name.startsWith('(') ? name : 'native'
  return 'other'
}

const where = (frame: ProfileNode['callFrame']) =>
  `${frame.functionName || '(anonymous)'} ${groupOf(frame.url, frame.functionName)}:${frame.lineNumber + 1}`

function printShares(title: string, totals: Map<string, number>, sum: number, unit: (v: number) => string) {
  console.log(`\n${title}`)
  const rows = [...totals].sort((a, b) => b[1] - a[1]).slice(0, top)
  for (const [key, value] of rows) {
    console.log(`${((100 * value) / sum).toFixed(1).padStart(6)} %  ${unit(value).padStart(10)}  ${key}`)
  }
}

function cpuShares(profile: CpuProfile) {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]))
  const byGroup = new Map<string, number>()
  const byFunction = new Map<string, number>()
  for (const id of profile.samples) {
    const frame = byId.get(id)!.callFrame
    const group = groupOf(frame.url, frame.functionName)
    byGroup.set(group, (byGroup.get(group) ?? 0) + 1)
    const key = where(frame)
    byFunction.set(key, (byFunction.get(key) ?? 0) + 1)
  }
  const total = profile.samples.length
  printShares('CPU self time by package', byGroup, total, (n) => `${n} smp`)
  printShares('CPU self time by function', byFunction, total, (n) => `${n} smp`)
}

function heapShares(root: HeapNode, calls: number) {
  const byGroup = new Map<string, number>()
  const byFunction = new Map<string, number>()
  let total = 0
  const visit = (node: HeapNode) => {
    if (node.selfSize > 0) {
      const group = groupOf(node.callFrame.url, node.callFrame.functionName)
      byGroup.set(group, (byGroup.get(group) ?? 0) + node.selfSize)
      const key = where(node.callFrame)
      byFunction.set(key, (byFunction.get(key) ?? 0) + node.selfSize)
      total += node.selfSize
    }
    for (const child of node.children) visit(child)
  }
  visit(root)
  const perCall = (bytes: number) => `${(bytes / calls).toFixed(0)} B/call`
  printShares(`Sampled allocation by package (${perCall(total)} in all)`, byGroup, total, perCall)
  printShares('Sampled allocation by function', byFunction, total, perCall)
}

const definition = findCase(caseId)
if (definition.kind !== 'timed') throw new Error(`${caseId} is not a timed case`)
const spec = await definition.load()
const runFor = async (ms: number) => {
  let calls = 0
  const end = performance.now() + ms
  while (performance.now() < end) {
    await spec.beforeRound?.()
    for (let i = 0; i < 50; i++) {
      const outcome = spec.op()
      if (outcome instanceof Promise) await outcome
      calls += spec.callsPerOp
    }
    await spec.afterRound?.()
  }
  return calls
}
await spec.beforeRound?.()
spec.verify(await spec.op())
await spec.afterRound?.()
await runFor(2_000)

const session = new Session()
session.connect()
await session.post('Profiler.enable')
await session.post('Profiler.setSamplingInterval', { interval: 100 })
if (!cpuOnly) {
  await session.post('HeapProfiler.enable')
  await session.post('HeapProfiler.startSampling', {
    samplingInterval: 512,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  })
}
await session.post('Profiler.start')
const cpuStart = process.cpuUsage()
const calls = await runFor(seconds * 1_000)
const cpu = process.cpuUsage(cpuStart)
const { profile } = (await session.post('Profiler.stop')) as { profile: CpuProfile }
const heap = cpuOnly
  ? undefined
  : ((await session.post('HeapProfiler.stopSampling')) as { profile: { head: HeapNode } }).profile
session.disconnect()
spec.dispose?.()

console.log(
  `${caseId}: ${calls} calls in ${seconds} s, ${((cpu.user + cpu.system) / calls).toFixed(2)} CPU µs/call ` +
    `under the profiler, load ${(await import('node:os'))
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
)
cpuShares(profile)
if (heap !== undefined) heapShares(heap.head, calls)
if (out !== '') writeFileSync(out, JSON.stringify(profile))
