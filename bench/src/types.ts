/** Median and spread of one figure over the measured rounds (after warm-up). */
export interface Stats {
  readonly n: number
  readonly median: number
  readonly p25: number
  readonly p75: number
  /** Median absolute deviation from the median. */
  readonly mad: number
  readonly min: number
  readonly max: number
}

/** A case measured per call over repeated rounds: wall time, CPU time and bytes allocated. */
export interface TimedResult {
  readonly kind: 'timed'
  readonly id: string
  readonly label: string
  /** Tool calls one invocation of the case performs (1 for `execute`, 100 for a 100-call step). */
  readonly callsPerOp: number
  readonly opsPerRound: number
  readonly wallUsPerCall: Stats
  /** process.cpuUsage() user + system, every thread of the process (GC helpers included). */
  readonly cpuUsPerCall: Stats
  /** Heap bytes allocated per call (GCProfiler), from separate rounds; null where not measurable. */
  readonly bytesPerCall: Stats | null
  /** The per-round figures the stats summarize, in round order. */
  readonly samples: {
    readonly wallUsPerCall: readonly number[]
    readonly cpuUsPerCall: readonly number[]
    readonly bytesPerCall: readonly number[]
  }
}

/** One named figure with its spread (n = 1 when measured once). */
export interface Figure {
  readonly name: string
  readonly unit: string
  readonly stats: Stats
}

/** A case whose outcome is a few figures rather than a per-call time (pool, memory, store sizes). */
export interface FiguresResult {
  readonly kind: 'figures'
  readonly id: string
  readonly label: string
  readonly figures: readonly Figure[]
}

/** A case the issue asks for whose feature does not exist yet: listed, never measured. */
export interface PendingResult {
  readonly kind: 'pending'
  readonly id: string
  readonly label: string
  readonly reason: string
}

export type CaseResult = TimedResult | FiguresResult | PendingResult

/** Round-loop settings shared by every case; the presets live in options.ts. */
export interface BenchOptions {
  /** Warm-up per case before any round is kept: at least this long… */
  readonly warmupMs: number
  /** …and at least this many tool calls… */
  readonly warmupCalls: number
  /** …unless this much time has passed. */
  readonly warmupMaxMs: number
  /** Target wall time of one round. */
  readonly roundMs: number
  /** Rounds kept for wall and CPU time. */
  readonly rounds: number
  /** Extra rounds run under the GC profiler for bytes allocated (0 skips the allocation pass). */
  readonly allocRounds: number
  /** Calls of the `memory` case (in steps of 100). */
  readonly memoryCalls: number
  /** Calls of the `pool_efficiency` case. */
  readonly poolCalls: number
  /** Repetitions of the `pool_efficiency` case. */
  readonly poolRounds: number
  /** Upper bound of one tool body's sleep in `pool_efficiency`, ms. */
  readonly poolMaxMs: number
  /** Rounds of `eager_dispatch` (each runs every scenario with eager dispatch on and off). */
  readonly eagerRounds: number
  /** How fast the simulated model of `eager_dispatch` streams. */
  readonly eagerTokensPerSecond: number
  /** What the 400 ms tool of `eager_dispatch` takes (the other durations scale with it), ms. */
  readonly eagerToolMs: number
  /** Repetitions of each `code_mode` measurement (cold starts take a new sandbox worker each). */
  readonly codeModeRounds: number
  /** Sequential calls per side (local, remote) in each round of `remote_dispatch`'s overhead figure. */
  readonly remoteCalls: number
  /** Rounds of `remote_dispatch`. */
  readonly remoteRounds: number
  /** Workers of `remote_dispatch` in their own processes (true) or in the bench process (the smoke test). */
  readonly remoteProcesses: boolean
}

/** What one child process reports back: one case, with the floor before and after it for timed cases. */
export interface ProcessReport {
  /** The case this process was started for. */
  readonly caseId: string
  /** The library under test: dsh or a peer. */
  readonly library: string
  readonly pid: number
  readonly loadavgStart: readonly number[]
  readonly loadavgEnd: readonly number[]
  readonly durationMs: number
  readonly results: readonly CaseResult[]
}

export type Log = (line: string) => void
