import type { JsonObject, JsonValue } from '@deepseek-ai/dsh-llm'
import { followRef } from './follow-ref.ts'
import { docLines } from './doc-lines.ts'
import {
  ATOM,
  NEVER,
  UNKNOWN,
  intersection,
  literal,
  postfix,
  union,
  type Rendered,
} from './rendered-type.ts'
import { jsDoc, memberName, pascalCase } from './ts-syntax.ts'

/** One JSON Schema document (a tool's parameters or its output schema): `$ref`s resolve inside it. */
export interface SchemaDocument {
  readonly root: JsonValue
  /** Stem of the names given to its referenced definitions (`ReadFile` → `ReadFileNode`). */
  readonly stem: string
  /** The name `$ref: "#"` (the document itself) gets. */
  readonly rootName: string
}

/** Named types shared by every document of one SDK: definitions that `$ref`s point at. */
export interface TypeNames {
  readonly used: Set<string>
  readonly byDocument: Map<SchemaDocument, Map<string, string>>
  readonly pending: {
    readonly name: string
    readonly doc: SchemaDocument
    readonly node: JsonValue
    readonly pointer: string
  }[]
}

export const TYPES_NAMESPACE = 'ToolTypes'

interface Site {
  readonly doc: SchemaDocument
  readonly names: TypeNames
  readonly indent: string
  readonly depth: number
  /**
   * Set while rendering the top of a named type (outside any object or array): a reference there is
   * inlined instead of named, because TypeScript refuses `type A = B | string` when `B` leads back
   * to `A`. Holds the pointers being inlined on this path, to stop a loop.
   */
  readonly inline: ReadonlySet<string> | undefined
}

const MAX_DEPTH = 32
/** Members of TypeScript's `Object` interface, which every object type inherits. */
const OBJECT_MEMBERS = new Set([
  'constructor',
  'toString',
  'toLocaleString',
  'valueOf',
  'hasOwnProperty',
  'isPrototypeOf',
  'propertyIsEnumerable',
])

const isObject = (value: JsonValue | undefined): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

export function createTypeNames(): TypeNames {
  return { used: new Set(), byDocument: new Map(), pending: [] }
}

/**
 * The TypeScript type of a document's root, at `indent`. A document that refers to itself gets a
 * named type and the name is returned; definitions it references are queued on `names`.
 */
export function documentType(doc: SchemaDocument, names: TypeNames, indent: string): string {
  if (refersToRoot(doc.root, 0)) return qualified(nameFor(doc, names, '', doc.root))
  return render(doc.root, { doc, names, indent, depth: 0, inline: undefined }).text
}

/** Renders every queued named type (rendering one may queue more); returns the declarations. */
export function drainNamedTypes(names: TypeNames, indent: string): string[] {
  const out: string[] = []
  for (let next = names.pending.shift(); next !== undefined; next = names.pending.shift()) {
    const body = render(next.node, {
      doc: next.doc,
      names,
      indent,
      depth: 0,
      inline: new Set([next.pointer]),
    })
    out.push(`${jsDoc(docLines(next.node), indent)}${indent}export type ${next.name} = ${body.text}`)
  }
  return out
}

function qualified(name: string): string {
  return `${TYPES_NAMESPACE}.${name}`
}

function refersToRoot(node: JsonValue | undefined, depth: number): boolean {
  if (depth > MAX_DEPTH || typeof node !== 'object' || node === null) return false
  if (Array.isArray(node)) return node.some((child) => refersToRoot(child, depth + 1))
  const object = node as JsonObject
  if (object.$ref === '#') return true
  return Object.values(object).some((child) => refersToRoot(child, depth + 1))
}

function nameFor(doc: SchemaDocument, names: TypeNames, pointer: string, node: JsonValue): string {
  let known = names.byDocument.get(doc)
  if (known === undefined) {
    known = new Map()
    names.byDocument.set(doc, known)
  }
  const existing = known.get(pointer)
  if (existing !== undefined) return existing
  const last = pointer.split('/').at(-1) ?? ''
  const stem = pointer === '' ? doc.rootName : `${doc.stem}${pascalCase(last)}`
  let name = stem
  for (let n = 2; names.used.has(name); n++) name = `${stem}${n}`
  names.used.add(name)
  known.set(pointer, name)
  names.pending.push({ name, doc, node, pointer })
  return name
}

function render(node: JsonValue | undefined, site: Site): Rendered {
  if (node === undefined || node === true) return UNKNOWN
  if (node === false) return NEVER
  if (!isObject(node) || site.depth > MAX_DEPTH) return UNKNOWN
  const next: Site = { ...site, depth: site.depth + 1 }
  const parts: Rendered[] = []
  if (typeof node.$ref === 'string') parts.push(reference(node.$ref, next))
  if (Object.hasOwn(node, 'const')) parts.push(literal(node.const as JsonValue, 0))
  else if (Array.isArray(node.enum)) parts.push(union(node.enum.map((value) => literal(value, 0))))
  else {
    const base = baseType(node, next)
    if (base !== undefined) parts.push(base)
  }
  for (const key of ['anyOf', 'oneOf'] as const) {
    const members = node[key]
    if (Array.isArray(members)) parts.push(union(members.map((member) => render(member, next))))
  }
  if (Array.isArray(node.allOf)) for (const member of node.allOf) parts.push(render(member, next))
  const type = intersection(parts)
  return node.nullable === true ? union([type, { text: 'null', prec: ATOM }]) : type
}

function reference(ref: string, site: Site): Rendered {
  const target = followRef(site.doc.root, ref)
  if (target === undefined) return UNKNOWN
  if (site.inline !== undefined) {
    // `S = S | string` adds nothing through its own S: the fixed point is `string`.
    if (site.inline.has(target.pointer)) return NEVER
    return render(target.node, { ...site, inline: new Set([...site.inline, target.pointer]) })
  }
  return { text: qualified(nameFor(site.doc, site.names, target.pointer, target.node)), prec: ATOM }
}

function baseType(node: JsonObject, site: Site): Rendered | undefined {
  let types: readonly JsonValue[]
  if (typeof node.type === 'string') types = [node.type]
  else if (Array.isArray(node.type)) types = node.type
  else if (
    isObject(node.properties) ||
    node.additionalProperties !== undefined ||
    isObject(node.patternProperties)
  )
    types = ['object']
  else if (node.items !== undefined || Array.isArray(node.prefixItems)) types = ['array']
  else return undefined
  return union(
    types.map((type): Rendered => {
      switch (type) {
        case 'string':
          return { text: 'string', prec: ATOM }
        case 'number':
        case 'integer':
          return { text: 'number', prec: ATOM }
        case 'boolean':
          return { text: 'boolean', prec: ATOM }
        case 'null':
          return { text: 'null', prec: ATOM }
        case 'array':
          return arrayType(node, site)
        case 'object':
          return objectType(node, site)
        default:
          return UNKNOWN
      }
    }),
  )
}

/** Inside an array or object a reference may be named again (TypeScript defers those). */
function nested(site: Site, indent: string): Site {
  return { ...site, indent, inline: undefined }
}

function arrayType(node: JsonObject, site: Site): Rendered {
  const inner = nested(site, site.indent)
  const tuple = Array.isArray(node.prefixItems)
    ? node.prefixItems
    : Array.isArray(node.items)
      ? node.items
      : undefined
  if (tuple === undefined) return { text: `${postfix(render(node.items, inner))}[]`, prec: ATOM }
  const rest = Array.isArray(node.prefixItems) ? node.items : node.additionalItems
  const required = typeof node.minItems === 'number' ? node.minItems : 0
  const members = tuple.map((member, i) => {
    const type = render(member, inner)
    return i < required ? type.text : `${postfix(type)}?`
  })
  if (rest !== false) members.push(`...${postfix(render(rest, inner))}[]`)
  return { text: `[${members.join(', ')}]`, prec: ATOM }
}

function objectType(node: JsonObject, site: Site): Rendered {
  const properties = isObject(node.properties) ? Object.entries(node.properties) : []
  const required = new Set(Array.isArray(node.required) ? node.required : [])
  const patterned = isObject(node.patternProperties) && Object.keys(node.patternProperties).length > 0
  const extra = node.additionalProperties
  const closed =
    !patterned && (extra === false || (extra === undefined && node.unevaluatedProperties === false))
  const inner = site.indent + '  '
  if (properties.length === 0) {
    const values = closed ? NEVER : patterned ? UNKNOWN : render(extra, nested(site, inner))
    return { text: `{ [key: string]: ${values.text} }`, prec: ATOM }
  }
  const lines = properties.map(([name, schema]) => {
    const type = render(schema, nested(site, inner))
    const doc = docLines(schema)
    if (required.has(name)) return `${jsDoc(doc, inner)}${inner}${memberName(name)}: ${type.text}\n`
    // TypeScript checks an omitted optional `constructor` (or `toString`, …) against the member every
    // object inherits, so any narrower type would reject every call that leaves it out.
    if (OBJECT_MEMBERS.has(name) && type.text !== 'unknown') {
      return `${jsDoc([...doc, `Declared type: ${type.text.replace(/\s+/g, ' ')}`], inner)}${inner}${memberName(name)}?: unknown\n`
    }
    return `${jsDoc(doc, inner)}${inner}${memberName(name)}?: ${type.text}\n`
  })
  // With named properties the index type must admit all of them, so anything extra is `unknown`.
  if (!closed) lines.push(`${inner}[key: string]: unknown\n`)
  return { text: `{\n${lines.join('')}${site.indent}}`, prec: ATOM }
}
