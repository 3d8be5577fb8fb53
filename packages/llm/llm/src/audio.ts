import { describeValue } from './describe-value.ts'

/**
 * The audio media types a block may carry (T71): the `audio` top-level type, a subtype of RFC 6838
 * restricted-name characters, and optional `; name=value` parameters (`audio/ogg; codecs=opus`).
 */
const AUDIO_MEDIA_TYPE =
  /^audio\/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}(?:\s*;\s*[A-Za-z0-9!#$&^_.+-]+=(?:[A-Za-z0-9!#$&^_.+-]+|"[^"\\]*"))*$/

/** Base64 text (RFC 4648 §4, padded): no whitespace, no URL-safe alphabet. */
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/

/** The position and character that make `data` not base64 (only looked for once it failed). */
function firstNonBase64(data: string): string {
  const body = data.replace(/={1,2}$/, '')
  for (let i = 0; i < body.length; i++) {
    const c = body.charCodeAt(i)
    const ok = (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 43 || c === 47
    if (!ok) return `character ${i} is ${JSON.stringify(body[i])}`
  }
  return `its length ${data.length} is not a multiple of 4`
}

/**
 * What is wrong with `block` as an audio block, or `undefined` when it is one: `mediaType` an
 * `audio/…` media type, `data` non-empty padded base64. The text names the field and what it held,
 * for the error of whoever refuses the block (T71); it starts with the field's name, so a caller
 * can prefix the block's place (`content[2].`). Reads only `mediaType`, `data` and `url`.
 */
export function audioProblem(block: {
  readonly mediaType?: unknown
  readonly data?: unknown
  readonly url?: unknown
}): string | undefined {
  const { mediaType, data, url } = block
  if (typeof mediaType !== 'string' || !AUDIO_MEDIA_TYPE.test(mediaType))
    return `mediaType must be an audio media type such as "audio/wav", got ${describeValue(mediaType)}`
  if (typeof data !== 'string') {
    const byUrl = url === undefined ? '' : ' (audio by "url" is not supported)'
    return `data must be a base64 string${byUrl}, got ${describeValue(data)}`
  }
  if (data.length === 0) return 'data must not be empty'
  if (data.length % 4 !== 0 || !BASE64.test(data)) return `data must be base64: ${firstNonBase64(data)}`
  return undefined
}

/** The number of bytes base64 `data` decodes to. */
export function base64ByteLength(data: string): number {
  const padding = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0
  return Math.max(0, Math.floor((data.length * 3) / 4) - padding)
}

/**
 * The text sent in place of audio a provider cannot take (T72): what it was, its type and size,
 * `[audio (audio/wav), 4 bytes, not shown]`, so the model still learns that audio was there.
 */
export function audioStandIn(block: { readonly mediaType: string; readonly data: string }): string {
  return `[audio (${block.mediaType}), ${base64ByteLength(block.data)} bytes, not shown]`
}
