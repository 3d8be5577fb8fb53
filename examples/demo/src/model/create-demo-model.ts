import type { LanguageModel } from '@deepseek-ai/dsh-llm'
import { ChatCompletionsError, createOpenAICompatibleModel } from '@deepseek-ai/dsh-llm-openai'
import { DemoError } from '../errors.ts'
import { createStoryModel } from './create-story-model.ts'

/** What a real model is asked when the command line gives no question. */
export const DEFAULT_QUESTION =
  'Give me a short tour of the docs folder: list it, read two files side by side, compute (3 + 4) * 6, tell me the time in UTC, and save a three-line note called tour.md in the scratch folder.'

/**
 * The scripted story model, or the OpenAI-compatible endpoint the environment names
 * (`DSH_BASE_URL`, `DSH_API_KEY`, `DSH_MODEL`; DeepSeek's `deepseek-chat` when neither a base URL
 * nor a model is given). A configuration the adapter refuses is a `DemoError` `USAGE` with its words.
 */
export function createDemoModel(options: {
  readonly scripted: boolean
  readonly thinkMs: number
  readonly env: NodeJS.ProcessEnv
}): LanguageModel {
  if (options.scripted) return createStoryModel({ thinkMs: options.thinkMs })
  const { env } = options
  const model = env['DSH_MODEL'] || (env['DSH_BASE_URL'] ? undefined : 'deepseek-chat')
  try {
    return createOpenAICompatibleModel({ env, ...(model === undefined ? {} : { model }) })
  } catch (error) {
    if (ChatCompletionsError.isInstance(error)) {
      throw new DemoError({
        code: 'USAGE',
        message: `the endpoint is not usable: ${error.message}`,
        cause: error,
      })
    }
    throw error
  }
}
