import { describeValue, type JsonObject, type JsonValue } from '@deepseek-ai/dsh-llm'
import { snapshotJsonValue } from '@deepseek-ai/dsh-llm'
import { invalidArgument } from '../contract/errors.ts'
import { docLines } from './doc-lines.ts'
import {
  createTypeNames,
  documentType,
  drainNamedTypes,
  TYPES_NAMESPACE,
  type SchemaDocument,
} from './schema-to-type.ts'
import { jsDoc, memberName, pascalCase } from './ts-syntax.ts'

/** What the SDK needs of one tool: its model-facing schema and, optionally, its value's schema. */
export interface SdkTool {
  readonly name: string
  readonly description: string
  readonly parameters: Readonly<Record<string, unknown>>
  /** JSON Schema of the value a call resolves with; without one the result type is `unknown`. */
  readonly outputSchema?: Readonly<Record<string, unknown>> | undefined
}

const COMBINATORS = ['$ref', 'anyOf', 'oneOf', 'allOf', 'not', 'if'] as const

/** True when `{}` satisfies the parameters for sure: the call may then omit them (`tools.name()`). */
function acceptsNoArguments(parameters: JsonValue): boolean {
  if (typeof parameters !== 'object' || parameters === null || Array.isArray(parameters)) return false
  const schema = parameters as JsonObject
  if (COMBINATORS.some((key) => schema[key] !== undefined)) return false
  return !Array.isArray(schema.required) || schema.required.length === 0
}

/** A detached plain-JSON copy of a schema object, or why it is not one. */
function plainObject(value: unknown): JsonObject | string {
  const snapshot = snapshotJsonValue(value)
  if (!snapshot.ok) return `${snapshot.path} ${snapshot.reason}`
  const copy = snapshot.value
  return typeof copy === 'object' && copy !== null && !Array.isArray(copy)
    ? (copy as JsonObject)
    : `it is ${describeValue(copy)}`
}

/**
 * TypeScript declarations of `tools` for Code Mode programs (T35): one method per tool, in the order
 * given, taking the arguments its JSON Schema describes and resolving with its output schema's type
 * (`unknown` without one); descriptions become JSDoc. A tool whose parameters require nothing can be
 * called as `tools.name()`; a name that is not an identifier is a quoted member (`tools["my-tool"]`).
 * `$ref`s to local definitions become named types in the `ToolTypes` namespace. The output depends
 * only on the input: the same tools give byte-identical text.
 * @example
 * const sdk = generateToolSdk(ctx.tools.schemas()) // `interface Tools { … }` + `declare const tools: Tools`
 */
export function generateToolSdk(tools: readonly SdkTool[]): string {
  if (!Array.isArray(tools)) {
    throw invalidArgument(`generateToolSdk(tools): tools must be an array, got ${describeValue(tools)}`)
  }
  const names = createTypeNames()
  const seen = new Set<string>()
  const members = tools.map((tool, index) => {
    const where = `generateToolSdk(tools): tools[${index}]`
    if (typeof tool !== 'object' || tool === null || typeof tool.name !== 'string' || tool.name === '') {
      throw invalidArgument(`${where} must be a tool with a non-empty name, got ${describeValue(tool)}`)
    }
    if (seen.has(tool.name)) throw invalidArgument(`${where}: the name "${tool.name}" appears twice`)
    seen.add(tool.name)
    const parameters = plainObject(tool.parameters)
    if (typeof parameters === 'string') {
      throw invalidArgument(
        `${where} ("${tool.name}"): parameters must be a plain JSON Schema object (${parameters})`,
      )
    }
    // An output schema only refines the result type: one that is not plain JSON leaves it `unknown`.
    const plainOutput = tool.outputSchema === undefined ? undefined : plainObject(tool.outputSchema)
    const output = typeof plainOutput === 'string' ? undefined : plainOutput
    const stem = pascalCase(tool.name)
    const argsDoc: SchemaDocument = { root: parameters, stem, rootName: `${stem}Args` }
    const args = documentType(argsDoc, names, '  ')
    const result =
      output === undefined
        ? 'unknown'
        : documentType({ root: output, stem, rootName: `${stem}Result` }, names, '  ')
    const argsText = docLines(parameters)[0]
    const resultText = output === undefined ? undefined : docLines(output)[0]
    const doc = jsDoc(
      [
        typeof tool.description === 'string' ? tool.description : '',
        ...(argsText === undefined || argsText.startsWith('@') ? [] : [`@param args ${argsText}`]),
        ...(resultText === undefined || resultText.startsWith('@') ? [] : [`@returns ${resultText}`]),
      ],
      '  ',
    )
    const optional = acceptsNoArguments(parameters) ? '?' : ''
    return `${doc}  ${memberName(tool.name)}(args${optional}: ${args}): Promise<${result}>\n`
  })
  const declarations = drainNamedTypes(names, '  ')
  const parts = [`interface Tools {\n${members.join('')}}`, 'declare const tools: Tools']
  if (declarations.length > 0)
    parts.push(`declare namespace ${TYPES_NAMESPACE} {\n${declarations.join('\n')}\n}`)
  return `${parts.join('\n\n')}\n`
}
