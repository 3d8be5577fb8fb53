import type { TurnResult } from '@deepseek-ai/dsh-agent-loop'

export interface HarnessOptions {
  readonly prompt: string
  /** The directory the tools may read; defaults to the working directory. */
  readonly root?: string
  /** Where DSH_BASE_URL / DSH_API_KEY / DSH_MODEL are read; defaults to process.env. */
  readonly env?: Readonly<Record<string, string | undefined>>
  readonly print?: (line: string) => void
  readonly signal?: AbortSignal
}

export declare function runHarness(options: HarnessOptions): Promise<{ result: TurnResult; pairsOk: boolean }>
