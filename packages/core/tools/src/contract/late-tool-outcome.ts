import type { JsonValue } from '@deepseek-ai/dsh-llm'

/**
 * What a body did after its call was answered (T38): it settled with a value (lossless JSON, or
 * `undefined`) or an error, or it was still running when the hard cap (`lateBodyCapMs`) passed.
 */
export type LateToolOutcome =
  | { readonly kind: 'value'; readonly value: JsonValue | undefined }
  | { readonly kind: 'error'; readonly message: string }
  | { readonly kind: 'abandoned' }
