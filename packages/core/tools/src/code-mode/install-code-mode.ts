import type { Context, Disposer } from '@deepseek-ai/dsh-context'
import { describeValue } from '@deepseek-ai/dsh-llm'
import { ToolsError, invalidArgument } from '../contract/errors.ts'
import { REGISTER_TRANSPORT, type TransportRegistrar } from '../registry/register-transport.ts'
import type { AnyToolDefinition } from '../contract/types.ts'
import { createRunCodeTool } from './create-run-code-tool.ts'
import { readCodeModeOptions, type CodeModeOptions } from './read-code-mode-options.ts'

const WHERE = 'installCodeMode(ctx, options)'

/**
 * Installs the `run_code` transport (T32–T34) in `ctx`'s scope (global from the root ctx): the
 * reserved tool whose body runs a program with `ctx.codeRuntime` and routes the program's tool
 * calls through the pipeline as nested calls. Who may call it is the presentation mode's business
 * (`mayCallTool`): the model under `code` and `both`, never a program. Returns a disposer.
 * @example
 * installTools(ctx)
 * installCodeRuntime(ctx) // @deepseek-ai/dsh-code-runtime
 * installCodeMode(ctx, { maxParallelSubCalls: 10, limits: { timeoutMs: 30_000 } })
 * ctx.tools.presentAs('code')
 */
export function installCodeMode(ctx: Context, options: CodeModeOptions = {}): Disposer {
  if (typeof ctx !== 'object' || ctx === null || typeof (ctx as Partial<Context>).provide !== 'function') {
    throw invalidArgument(`${WHERE}: ctx must be a context from createContext(), got ${describeValue(ctx)}`)
  }
  const settings = readCodeModeOptions(WHERE, options)
  const tools = (ctx as { tools?: unknown }).tools
  if (tools === undefined) {
    throw new ToolsError({
      code: 'NOT_INSTALLED',
      message: `${WHERE}: scope "${ctx.scope.name}" has no ctx.tools; call installTools(ctx) first`,
    })
  }
  const register = (tools as Partial<TransportRegistrar>)[REGISTER_TRANSPORT]
  if (typeof register !== 'function') {
    throw new ToolsError({
      code: 'NOT_INSTALLED',
      message: `${WHERE}: ctx.tools in scope "${ctx.scope.name}" cannot register the Code Mode transport (installed by an older @deepseek-ai/dsh-tools?)`,
    })
  }
  return register.call(tools, createRunCodeTool(settings) as AnyToolDefinition)
}
