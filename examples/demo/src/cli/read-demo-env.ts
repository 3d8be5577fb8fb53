import { DemoError } from '../errors.ts'

/** Settings the environment gives the demo. */
export interface DemoEnv {
  /** One step of `long_task` (`DSH_DEMO_SLOW_MS`, default 400). */
  readonly slowMs: number
  /** The scripted model's time per step (`DSH_DEMO_THINK_MS`, default 300). */
  readonly thinkMs: number
  /** A real endpoint is configured (`DSH_API_KEY` or `DSH_BASE_URL`). */
  readonly endpoint: boolean
}

function milliseconds(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number): number {
  const raw = env[name]
  if (raw === undefined || raw === '') return fallback
  const value = Number(raw)
  if (!Number.isInteger(value) || value < min || value > 3_600_000) {
    throw new DemoError({
      code: 'USAGE',
      message: `${name} must be a whole number of milliseconds from ${min} to 3600000, got ${JSON.stringify(raw)}`,
    })
  }
  return value
}

/** Reads the demo's environment; a bad value is a `DemoError` `USAGE` naming the variable. */
export function readDemoEnv(env: NodeJS.ProcessEnv): DemoEnv {
  return {
    slowMs: milliseconds(env, 'DSH_DEMO_SLOW_MS', 400, 1),
    thinkMs: milliseconds(env, 'DSH_DEMO_THINK_MS', 300, 0),
    endpoint: Boolean(env['DSH_API_KEY'] || env['DSH_BASE_URL']),
  }
}
