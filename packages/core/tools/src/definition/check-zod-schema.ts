import { globalRegistry, version as loadedZod } from 'zod/v4/core'
import type { $ZodType } from 'zod/v4/core'
import { describeValue } from '@deepseek-ai/dsh-llm'
import { ToolsError } from '../contract/errors.ts'

interface ZodVersion {
  readonly major: number
  readonly minor: number
  readonly patch: number
}

const SUPPORTED = 'zod ^4.0.0, or the "zod/v4" entry of zod ^3.25.76'
const format = (v: ZodVersion): string => `${v.major}.${v.minor}.${v.patch}`
const loaded = `zod ${format(loadedZod)}`

function isVersion(value: unknown): value is ZodVersion {
  const v = value as Partial<ZodVersion> | null | undefined
  return typeof v?.major === 'number' && typeof v.minor === 'number' && typeof v.patch === 'number'
}

/**
 * Whether a schema made by another copy of zod converts to JSON Schema without loss: `.describe()`
 * texts live in a registry per copy of zod, except where zod keeps one registry for the process
 * (then two copies of the same release, such as zod's own ESM and CommonJS builds, share it).
 */
function sharesMetadata(version: ZodVersion): boolean {
  const processWide = (globalThis as { __zod_globalRegistry?: unknown }).__zod_globalRegistry
  return format(version) === format(loadedZod) && processWide === globalRegistry
}

/**
 * Checks that `value` is a zod 4 schema this package can read: made by the copy of zod it loaded
 * (zod is a peer dependency, so normally there is one), of the expected kind. Every refusal names
 * the versions involved and what to do; nothing is half-converted.
 */
export function checkZodSchema(options: {
  readonly where: string
  readonly field: 'parameters' | 'output'
  readonly value: unknown
  readonly objectOnly: boolean
}): $ZodType {
  const { where, field, value, objectOnly } = options
  const kind = objectOnly ? 'a zod object schema (z.object({...}))' : 'a zod schema'
  const fail = (code: 'INVALID_DEFINITION' | 'UNSUPPORTED_SCHEMA', why: string): never => {
    throw new ToolsError({ code, message: `${where}: ${field} must be ${kind}; ${why}` })
  }
  if ((typeof value !== 'object' && typeof value !== 'function') || value === null) {
    return fail('INVALID_DEFINITION', `got ${describeValue(value)}`)
  }
  const internals = (value as { _zod?: { version?: unknown; def?: { type?: unknown } } })._zod
  if (internals === undefined) {
    const legacy = '_def' in value && typeof (value as { safeParse?: unknown }).safeParse === 'function'
    return fail(
      'UNSUPPORTED_SCHEMA',
      legacy
        ? `got a zod 3 schema, which @deepseek-ai/dsh-tools does not read (it runs with ${loaded}). ` +
            `Build it with ${SUPPORTED}: import { z } from 'zod' with zod 4, or from 'zod/v4' with zod 3.25.76+`
        : `got ${describeValue(value)}, which is not a zod schema`,
    )
  }
  const version = internals.version
  if (!isVersion(version) || version.major !== 4) {
    return fail(
      'UNSUPPORTED_SCHEMA',
      `it was made by zod ${isVersion(version) ? format(version) : 'of an unknown version'}; ` +
        `@deepseek-ai/dsh-tools supports ${SUPPORTED} (it runs with ${loaded})`,
    )
  }
  if (version !== loadedZod && !sharesMetadata(version)) {
    return fail(
      'UNSUPPORTED_SCHEMA',
      `it was made by another copy of zod (${format(version)}) than the one @deepseek-ai/dsh-tools ` +
        `loaded (${format(loadedZod)}), and its .describe() texts would be lost on the way to the ` +
        'model. zod is a peer dependency: install one zod in your project so that both resolve to it',
    )
  }
  if (objectOnly && internals.def?.type !== 'object') {
    return fail('INVALID_DEFINITION', `got a zod ${String(internals.def?.type)} schema`)
  }
  return value as $ZodType
}
