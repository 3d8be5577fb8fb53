import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js'
import { ErrorCode, McpError, type ElicitRequest } from '@modelcontextprotocol/sdk/types.js'
import { deepFreeze, describeValue, type JsonObject, type JsonValue } from '@deepseek-ai/dsh-llm'
import { compileJsonSchema } from '@deepseek-ai/dsh-tools/json-schema'
import { askOutside } from './ask-outside.ts'
import type { McpElicitationConfig, McpElicitationRequest } from './client-config.ts'
import { describeError } from './describe-error.ts'
import { askingCall, callOf } from './running-calls.ts'
import type { ServerRuntime } from './server-runtime.ts'
import { untilAborted } from './until-aborted.ts'

type Extra = RequestHandlerExtra<never, never>
const ACTIONS = ['accept', 'decline', 'cancel']

/**
 * The question as recorded and matched on a re-run: the request's params without `_meta` and
 * `task`, a frozen copy (the handler cannot change the schema its answer is checked against).
 */
function questionOf(params: ElicitRequest['params']): JsonObject {
  const { _meta: _ignored, task: _task, ...question } = params as Record<string, unknown>
  return deepFreeze(JSON.parse(JSON.stringify(question)) as JsonObject)
}

const isFormValue = (value: unknown): boolean =>
  typeof value === 'string' ||
  typeof value === 'boolean' ||
  (typeof value === 'number' && Number.isFinite(value)) ||
  (Array.isArray(value) && value.every((item) => typeof item === 'string'))

/**
 * The answer as MCP's `ElicitResult`, checked: an `action` of accept / decline / cancel; `content`
 * only with `accept` in form mode, made of form values, and valid against the requested schema.
 * Throws `InvalidParams` naming what is wrong (the server gets that error, nothing else).
 */
export function checkElicitationAnswer(server: string, params: JsonObject, value: unknown): JsonObject {
  const refuse = (problem: string): McpError =>
    new McpError(
      ErrorCode.InvalidParams,
      `the answer to MCP server "${server}"'s elicitation was refused: ${problem}`,
    )
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw refuse(`it must be { action, content? }, got ${describeValue(value)}`)
  const { action, content } = value as Record<string, unknown>
  if (typeof action !== 'string' || !ACTIONS.includes(action))
    throw refuse(`action must be "accept", "decline" or "cancel", got ${describeValue(action)}`)
  if (content === undefined) return { action }
  if (action !== 'accept') throw refuse(`content comes only with "accept", not "${action}"`)
  if (params.mode === 'url') throw refuse('a URL-mode elicitation is answered without content')
  if (typeof content !== 'object' || content === null || Array.isArray(content))
    throw refuse(`content must be an object of form values, got ${describeValue(content)}`)
  // each value is read once, into the copy that is checked and sent (a getter cannot say one thing
  // to the check and another to the server)
  const copy: Record<string, JsonValue> = {}
  for (const [key, item] of Object.entries(content)) {
    const value: unknown = Array.isArray(item) ? Array.from(item as unknown[]) : item
    if (!isFormValue(value))
      throw refuse(
        `content.${key} must be a string, number, boolean or array of strings, got ${describeValue(value)}`,
      )
    copy[key] = value as JsonValue
  }
  const schema = params.requestedSchema
  if (typeof schema === 'object' && schema !== null && !Array.isArray(schema)) {
    let checked: ReturnType<ReturnType<typeof compileJsonSchema>>
    try {
      checked = compileJsonSchema(schema as JsonObject)(copy as JsonObject)
    } catch (error) {
      throw refuse(`the requested schema does not compile (${describeError(error)})`)
    }
    if (!checked.ok)
      throw refuse(
        `content does not match the requested schema: ${checked.issues.map((i) => `${i.path} ${i.message}`).join('; ')}`,
      )
  }
  return { action, content: deepFreeze(copy) as JsonObject }
}

/**
 * `elicitation/create` (T65, T66): the harness's handler is asked, with the call the request came
 * in during when the plugin can tell; through the agent loop's exchange log when the call has one
 * (recorded; a re-run after a restart is answered from the log). The answer is checked before it
 * is sent (`checkElicitationAnswer`); a handler that throws, or an answer that is refused, is an
 * error to the server and a warning in the log.
 */
export async function answerElicitation(
  server: ServerRuntime,
  config: McpElicitationConfig,
  request: ElicitRequest,
  extra: Extra,
): Promise<JsonObject> {
  const params = request.params
  const question = questionOf(params)
  const call = callOf(server.calls, params._meta)
  const signal = call === undefined ? extra.signal : AbortSignal.any([extra.signal, call.exec.signal])
  const ask = async (): Promise<JsonObject> => {
    const asked: McpElicitationRequest = Object.freeze({
      server: server.name,
      call: askingCall(call),
      mode: params.mode === 'url' ? 'url' : 'form',
      message: params.message,
      ...('requestedSchema' in params ? { requestedSchema: question.requestedSchema as JsonObject } : {}),
      ...('url' in params ? { url: params.url, elicitationId: params.elicitationId } : {}),
      signal,
    })
    let answer: unknown
    try {
      answer = await untilAborted(
        Promise.resolve().then(() => config.handler(asked)),
        signal,
      )
    } catch (error) {
      if (signal.aborted) throw error
      throw new McpError(ErrorCode.InternalError, `the elicitation handler failed: ${describeError(error)}`)
    }
    return checkElicitationAnswer(server.name, question, answer)
  }
  try {
    const answer = await askOutside({ server, call, kind: 'elicitation', request: question, answer: ask })
    // an answer given to resume was only shape-checked by the loop: check it as any answer
    return checkElicitationAnswer(server.name, question, answer)
  } catch (error) {
    if (!signal.aborted)
      server.ctx.logger.warn(
        `MCP server "${server.name}": its elicitation got an error: ${describeError(error)}`,
        { server: server.name },
      )
    throw error
  }
}
