import type { JsonObject, JsonValue } from '@deepseek-ai/dsh-llm'

const MAX_REF_HOPS = 32
/** Keys that do not change what a schema accepts: `{ $ref, description }` is still a bare reference. */
const ANNOTATIONS = new Set(['$ref', 'description', 'title', '$comment', 'default', 'examples', 'deprecated'])

const isObject = (value: JsonValue | undefined): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/** Resolves a local JSON Pointer (`#`, `#/$defs/Node`); anything else (URLs, anchors) is not followed. */
function resolvePointer(root: JsonValue, ref: string): { pointer: string; node: JsonValue } | undefined {
  if (!ref.startsWith('#')) return undefined
  let fragment: string
  try {
    fragment = decodeURIComponent(ref.slice(1))
  } catch {
    return undefined
  }
  if (fragment === '') return { pointer: '', node: root }
  if (!fragment.startsWith('/')) return undefined
  let node: JsonValue | undefined = root
  for (const raw of fragment.split('/').slice(1)) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~')
    if (Array.isArray(node)) node = /^(0|[1-9][0-9]*)$/.test(key) ? node[Number(key)] : undefined
    else if (isObject(node) && Object.hasOwn(node, key)) node = node[key]
    else node = undefined
    if (node === undefined) return undefined
  }
  return { pointer: fragment, node }
}

/**
 * Where a `$ref` inside the document `root` points, following `$ref` → `$ref` chains to the first
 * real schema. Only local JSON Pointers (`#`, `#/$defs/Node`) are followed, never URLs or anchors
 * (a schema from a remote server must not make the generator fetch anything); a loop of bare
 * references, or a pointer to nothing, is `undefined`.
 */
export function followRef(root: JsonValue, ref: string): { pointer: string; node: JsonValue } | undefined {
  const seen = new Set<string>()
  let target = resolvePointer(root, ref)
  for (let hops = 0; target !== undefined && hops < MAX_REF_HOPS; hops++) {
    const node = target.node
    if (
      !isObject(node) ||
      typeof node.$ref !== 'string' ||
      !Object.keys(node).every((k) => ANNOTATIONS.has(k))
    )
      return target
    if (seen.has(target.pointer)) return undefined
    seen.add(target.pointer)
    target = resolvePointer(root, node.$ref)
  }
  return undefined
}
