import { loadavg } from 'node:os'
import { measureCase, type TimedCase } from '../harness/measure-case.ts'
import type { BenchOptions, CaseResult, Log, ProcessReport } from '../types.ts'
import type { StepShape } from './dsh-cases.ts'
import { floorCase } from './floor.ts'

/**
 * One entry per child process. A `timed` case is measured between two floors in its process; a
 * `figures` case reports its own figures. Each loader imports only its own library, so a process
 * never runs another library's code. New cases go here (and leave pending.ts).
 */
export type CaseDefinition =
  | {
      readonly id: string
      readonly library: string
      readonly kind: 'timed'
      load(): Promise<TimedCase>
    }
  | {
      readonly id: string
      readonly library: string
      readonly kind: 'figures'
      run(options: BenchOptions, log: Log): Promise<CaseResult[]>
    }

const dsh = () => import('./dsh-cases.ts')
const turns = () => import('./turn-cases.ts')

const stepShapes: StepShape[] = []
for (const calls of [10, 100] as const) {
  for (const mode of ['parallel', 'exclusive'] as const) {
    for (const store of ['memory', 'jsonl', 'jsonl-step'] as const) stepShapes.push({ calls, mode, store })
  }
}

/**
 * The AI SDK's cases, each run right after the dsh case its goal compares it with (`goals.ts`):
 * the goals divide the two processes' raw CPU medians, so the two should meet the same machine.
 */
const aiSdk: Record<string, CaseDefinition> = {
  'dsh.step.100.parallel.memory': {
    id: 'ai-sdk.generateText.100',
    library: 'ai-sdk',
    kind: 'timed',
    load: async () => (await import('./ai-sdk-cases.ts')).generateTextCase(),
  },
  'dsh.turn.100': {
    id: 'ai-sdk.turn.100',
    library: 'ai-sdk',
    kind: 'timed',
    load: async () => (await import('./ai-sdk-cases.ts')).turnCase(),
  },
  'dsh.conversation.10': {
    id: 'ai-sdk.conversation.10',
    library: 'ai-sdk',
    kind: 'timed',
    load: async () => (await import('./ai-sdk-cases.ts')).conversationCase({ turns: 10, calls: 10 }),
  },
}

/** `definition`, then the peer case compared with it, if any. */
const withPeer = (definition: CaseDefinition): CaseDefinition[] => {
  const peer = aiSdk[definition.id]
  return peer === undefined ? [definition] : [definition, peer]
}

export const CASES: readonly CaseDefinition[] = [
  {
    id: 'dsh.execute',
    library: 'dsh',
    kind: 'timed',
    load: async () => (await dsh()).executeCase('object'),
  },
  {
    id: 'dsh.execute.timeout',
    library: 'dsh',
    kind: 'timed',
    load: async () => (await dsh()).executeCase('timeout'),
  },
  {
    id: 'dsh.execute.default-timeout',
    library: 'dsh',
    kind: 'timed',
    load: async () => (await dsh()).executeCase('default-timeout'),
  },
  {
    id: 'dsh.execute.number',
    library: 'dsh',
    kind: 'timed',
    load: async () => (await dsh()).executeCase('number'),
  },
  {
    id: 'dsh.execute.observed',
    library: 'dsh',
    kind: 'timed',
    load: async () => (await dsh()).executeCase('observed'),
  },
  { id: 'dsh.executeBatch.100', library: 'dsh', kind: 'timed', load: async () => (await dsh()).batchCase() },
  ...stepShapes.flatMap((shape) =>
    withPeer({
      id: `dsh.step.${shape.calls}.${shape.mode}.${shape.store}`,
      library: 'dsh',
      kind: 'timed',
      load: async () => (await dsh()).stepCase(shape),
    }),
  ),
  ...withPeer({
    id: 'dsh.turn.100',
    library: 'dsh',
    kind: 'timed',
    load: async () => (await turns()).turnCase({ calls: 100 }),
  }),
  ...([10, 1000] as const).map((tools): CaseDefinition => ({
    id: `dsh.turn.10.tools.${tools}`,
    library: 'dsh',
    kind: 'timed',
    load: async () => (await turns()).turnCase({ calls: 10, tools }),
  })),
  ...withPeer({
    id: 'dsh.conversation.10',
    library: 'dsh',
    kind: 'timed',
    load: async () => (await turns()).conversationCase({ turns: 10, calls: 10 }),
  }),
  {
    id: 'openai-agents.run.100',
    library: 'openai-agents',
    kind: 'timed',
    load: async () => (await import('./openai-agents-cases.ts')).agentsRunCase(),
  },
  {
    id: 'langgraph.ToolNode.100',
    library: 'langgraph',
    kind: 'timed',
    load: async () => (await import('./langgraph-cases.ts')).toolNodeCase(),
  },
  {
    id: 'pool_efficiency',
    library: 'dsh',
    kind: 'figures',
    run: async (options, log) => (await import('./pool-case.ts')).runPoolEfficiency(options, log),
  },
  {
    id: 'remote_dispatch',
    library: 'dsh',
    kind: 'figures',
    run: async (options, log) => (await import('./remote-case.ts')).runRemoteDispatch(options, log),
  },
  {
    id: 'eager_dispatch',
    library: 'dsh',
    kind: 'figures',
    run: async (options, log) => (await import('./eager-case.ts')).runEagerDispatch(options, log),
  },
  {
    id: 'memory',
    library: 'dsh',
    kind: 'figures',
    run: async (options, log) =>
      (await import('./memory-case.ts')).runMemoryCase(options, log, { timeout: false }),
  },
  {
    id: 'memory.timeout',
    library: 'dsh',
    kind: 'figures',
    run: async (options, log) =>
      (await import('./memory-case.ts')).runMemoryCase(options, log, { timeout: true }),
  },
  ...(['memory', 'write', 'fsync'] as const).map((store): CaseDefinition => ({
    id: `store.append.${store}`,
    library: 'dsh',
    kind: 'timed',
    load: async () => (await import('./store-cases.ts')).appendCase(store),
  })),
  ...(['bare', 'checked'] as const).map((variant): CaseDefinition => ({
    id: `floor.jsonl.write${variant === 'bare' ? '' : '.checked'}`,
    library: 'dsh',
    kind: 'timed',
    load: async () => (await import('./jsonl-floor-case.ts')).jsonlWriteFloorCase(variant),
  })),
  {
    id: 'store.append.postgres',
    library: 'dsh',
    kind: 'timed',
    load: async () => (await import('./postgres-cases.ts')).appendCase(),
  },
  {
    id: 'store.postgres.burst',
    library: 'dsh',
    kind: 'figures',
    run: async (options, log) => (await import('./postgres-cases.ts')).runBurstCase(options, log),
  },
  {
    id: 'store.postgres.step',
    library: 'dsh',
    kind: 'figures',
    run: async (options, log) => (await import('./postgres-cases.ts')).runStepCase(options, log),
  },
  {
    id: 'code_mode',
    library: 'dsh',
    kind: 'figures',
    run: async (options, log) => (await import('./code-mode-case.ts')).runCodeModeCase(options, log),
  },
  {
    id: 'store.jsonl-bytes',
    library: 'dsh',
    kind: 'figures',
    run: async () => (await import('./store-cases.ts')).jsonlBytesPerCall(),
  },
]

export function findCase(id: string): CaseDefinition {
  const found = CASES.find((candidate) => candidate.id === id)
  if (found === undefined)
    throw new Error(`Unknown case "${id}". Cases: ${CASES.map((c) => c.id).join(', ')}.`)
  return found
}

/** The cases whose id is `selector` or starts with `selector.` (so `dsh.step` selects the whole matrix). */
export function selectCases(selector: string): CaseDefinition[] {
  const found = CASES.filter((c) => c.id === selector || c.id.startsWith(`${selector}.`))
  if (found.length === 0) {
    throw new Error(`No case matches "${selector}". Cases: ${CASES.map((c) => c.id).join(', ')}.`)
  }
  return found
}

/** The closing floor only checks for drift: a short warm-up, a third of the rounds, no allocation pass. */
function driftCheck(options: BenchOptions): BenchOptions {
  return {
    ...options,
    warmupMs: Math.min(options.warmupMs, 100),
    warmupCalls: 0,
    rounds: Math.max(1, Math.ceil(options.rounds / 3)),
    allocRounds: 0,
  }
}

/** Runs one case in this process: a timed case between two floors, a figures case as it is. */
export async function runCaseInProcess(
  definition: CaseDefinition,
  options: BenchOptions,
  log: Log,
): Promise<ProcessReport> {
  const loadavgStart = loadavg()
  const start = performance.now()
  const results: CaseResult[] = []
  if (definition.kind === 'timed') {
    results.push(await measureCase(floorCase('floor'), options, log))
    results.push(await measureCase(await definition.load(), options, log))
    results.push(await measureCase(floorCase('floor.end'), driftCheck(options), log))
  } else {
    results.push(...(await definition.run(options, log)))
  }
  return {
    caseId: definition.id,
    library: definition.library,
    pid: process.pid,
    loadavgStart,
    loadavgEnd: loadavg(),
    durationMs: performance.now() - start,
    results,
  }
}
