import { types } from 'node:util'
import { describeValue } from '@deepseek-ai/dsh-llm'
import { invalidArgument } from './errors.ts'
import { readLimits } from './read-limits.ts'
import type { CodeBinding, CodeLanguage, ResolvedCodeRunLimits } from './types.ts'

/** A request read once: later changes to the caller's objects (or getters) cannot affect the run. */
export interface RunRequest {
  readonly program: string
  readonly language: CodeLanguage
  /** A Map, so no binding name (`__proto__`, `constructor`, …) can meet an inherited property. */
  readonly bindings: ReadonlyMap<string, CodeBinding>
  readonly signal: AbortSignal | undefined
  readonly limits: ResolvedCodeRunLimits
}

const FIELDS = ['program', 'language', 'bindings', 'signal', 'limits']
const WHERE = 'run(request)'

/** Validates and snapshots a `run` request; throws `INVALID_ARGUMENT` naming what is wrong. */
export function readRunRequest(request: unknown, defaults: ResolvedCodeRunLimits): RunRequest {
  if (typeof request !== 'object' || request === null || Array.isArray(request) || types.isProxy(request)) {
    throw invalidArgument(`${WHERE}: request must be a plain object, got ${describeValue(request)}`)
  }
  for (const key of Object.keys(request)) {
    if (!FIELDS.includes(key)) {
      throw invalidArgument(
        `${WHERE}: request has an unknown field ${JSON.stringify(key)}; known fields: ${FIELDS.join(', ')}`,
      )
    }
  }
  const fields = request as Record<string, unknown>
  const program = fields.program
  if (typeof program !== 'string') {
    throw invalidArgument(`${WHERE}: request.program must be a string, got ${describeValue(program)}`)
  }
  const language = fields.language ?? 'typescript'
  if (language !== 'typescript' && language !== 'javascript') {
    throw invalidArgument(
      `${WHERE}: request.language must be "typescript" or "javascript", got ${describeValue(language)}`,
    )
  }
  return {
    program,
    language,
    bindings: readBindings(fields.bindings),
    signal: readSignal(fields.signal),
    limits: readLimits(fields.limits, defaults, `${WHERE}: request.limits`),
  }
}

function readBindings(bindings: unknown): ReadonlyMap<string, CodeBinding> {
  const map = new Map<string, CodeBinding>()
  if (bindings === undefined) return map
  if (
    typeof bindings !== 'object' ||
    bindings === null ||
    Array.isArray(bindings) ||
    types.isProxy(bindings)
  ) {
    throw invalidArgument(
      `${WHERE}: request.bindings must be an object of functions, got ${describeValue(bindings)}`,
    )
  }
  for (const name of Object.keys(bindings)) {
    const binding: unknown = (bindings as Record<string, unknown>)[name]
    if (typeof binding !== 'function') {
      throw invalidArgument(
        `${WHERE}: request.bindings[${JSON.stringify(name)}] must be a function, got ${describeValue(binding)}`,
      )
    }
    map.set(name, binding as CodeBinding)
  }
  return map
}

function readSignal(signal: unknown): AbortSignal | undefined {
  if (signal === undefined) return undefined
  if (!(signal instanceof AbortSignal)) {
    throw invalidArgument(`${WHERE}: request.signal must be an AbortSignal, got ${describeValue(signal)}`)
  }
  return signal
}
