import type { BenchOptions } from './types.ts'

/** `pnpm bench`: about four minutes on a busy 2-core machine. */
export const FULL_OPTIONS: BenchOptions = {
  warmupMs: 500,
  warmupCalls: 30_000,
  warmupMaxMs: 5_000,
  roundMs: 100,
  rounds: 15,
  allocRounds: 3,
  memoryCalls: 100_000,
  poolCalls: 200,
  poolRounds: 5,
  poolMaxMs: 200,
  eagerRounds: 6,
  eagerTokensPerSecond: 60,
  eagerToolMs: 400,
  codeModeRounds: 15,
  remoteCalls: 200,
  remoteRounds: 7,
  remoteProcesses: true,
}

/** `pnpm bench --quick`: the same cases, fewer and shorter rounds; for a look, not for a record. */
export const QUICK_OPTIONS: BenchOptions = {
  warmupMs: 100,
  warmupCalls: 5_000,
  warmupMaxMs: 3_000,
  roundMs: 40,
  rounds: 5,
  allocRounds: 1,
  memoryCalls: 10_000,
  poolCalls: 200,
  poolRounds: 2,
  poolMaxMs: 200,
  eagerRounds: 2,
  eagerTokensPerSecond: 60,
  eagerToolMs: 400,
  codeModeRounds: 5,
  remoteCalls: 50,
  remoteRounds: 3,
  remoteProcesses: true,
}

/** The smoke test: one round of each case with a small N, only to prove every case produces figures. */
export const SMOKE_OPTIONS: BenchOptions = {
  warmupMs: 0,
  warmupCalls: 0,
  warmupMaxMs: 0,
  roundMs: 0,
  rounds: 1,
  allocRounds: 1,
  memoryCalls: 200,
  poolCalls: 20,
  poolRounds: 1,
  poolMaxMs: 5,
  eagerRounds: 1,
  eagerTokensPerSecond: 3_000,
  eagerToolMs: 8,
  codeModeRounds: 1,
  remoteCalls: 5,
  remoteRounds: 1,
  remoteProcesses: false,
}
