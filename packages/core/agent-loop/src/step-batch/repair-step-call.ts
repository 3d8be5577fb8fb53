import type { Logger } from '@deepseek-ai/dsh-context'
import type { Message, ToolCallBlock } from '@deepseek-ai/dsh-llm'
import { describeThrown, type ToolRuntime } from '@deepseek-ai/dsh-tools'
import type { CallFix, RepairToolCall, ToolCallProblem } from '../base/context-types.ts'

/** A call's repair hook and what it is told besides the call (`createAgent({ repairToolCall })`). */
export interface StepRepair {
  readonly hook: RepairToolCall | undefined
  /** The history the model was given this step. */
  readonly history: readonly Message[]
}

/** The text provider get back for a call whose arguments were not a JSON object (T55). */
const REPLAY_ARGUMENTS = '{}'

/**
 * `ctx.tools.checkArguments`, or undefined for a tools copy older than it (nothing is checked then).
 * Without a repair hook only unparsable text changes what the loop does (T55: it is replayed as
 * `{}`), so only the parse runs, within the pipeline's limits; the pipeline validates the call when
 * it runs. A tools copy older than the parse-only mode ignores the option and checks everything.
 */
export function checkCall(
  tools: ToolRuntime,
  block: ToolCallBlock,
  repair: StepRepair,
): ToolCallProblem | undefined {
  if (typeof tools.checkArguments !== 'function') return undefined
  const check =
    repair.hook === undefined
      ? tools.checkArguments(block.name, block.arguments, PARSE_ONLY)
      : tools.checkArguments(block.name, block.arguments)
  return check.ok ? undefined : { problem: check.problem, message: check.message }
}

const PARSE_ONLY = Object.freeze({ only: 'parse' as const })

/** What the parse alone finds (a tools copy without the parse-only mode answers `unknown-tool` again). */
function parseProblem(tools: ToolRuntime, block: ToolCallBlock): ToolCallProblem['problem'] | undefined {
  const check = tools.checkArguments(block.name, block.arguments, PARSE_ONLY)
  return check.ok ? undefined : check.problem
}

/**
 * What the loop does to a broken call before it runs (T54, T55): offers it to the repair hook and
 * keeps an answer that passes the check (a throw, an answer that still fails, or none: the call runs
 * as the model wrote it and fails as it would have); a call whose text is no JSON object and that
 * was not repaired is given back to the provider as `{}` (its result quotes the text). The answer is
 * recorded on the call's `tool/call`, so the log replays and a resume rebuilds the same history.
 */
export async function repairStepCall(options: {
  readonly tools: ToolRuntime
  readonly block: ToolCallBlock
  readonly problem: ToolCallProblem
  readonly repair: StepRepair
  readonly logger: Logger
  readonly where: string
}): Promise<CallFix | undefined> {
  const { tools, block, problem, repair, logger, where } = options
  // an unknown tool's text may not parse either: the provider must get JSON back all the same (T55)
  const unparsable =
    problem.problem === 'unparsable' ||
    (problem.problem === 'unknown-tool' && parseProblem(tools, block) === 'unparsable')
  const unrepaired: CallFix | undefined = unparsable
    ? { kind: 'replay', arguments: REPLAY_ARGUMENTS }
    : undefined
  if (repair.hook === undefined) return unrepaired
  let answer
  try {
    answer = await repair.hook({
      call: { id: block.id, name: block.name, arguments: block.arguments },
      error: problem,
      tools: tools.schemas(),
      definition: tools.get(block.name),
      history: repair.history,
    })
  } catch (error) {
    logger.error(`${where}: repairToolCall threw for call "${block.id}"; it runs as the model wrote it`, {
      error: describeThrown(error),
    })
    return unrepaired
  }
  if (answer === undefined || answer === null) return unrepaired
  const name = answer.name ?? block.name
  const text = typeof answer.arguments === 'string' ? answer.arguments : JSON.stringify(answer.arguments)
  const still =
    typeof name === 'string' && typeof text === 'string' ? tools.checkArguments(name, text) : undefined
  if (still?.ok !== true) {
    logger.warn(
      `${where}: repairToolCall's answer for call "${block.id}" still fails; it runs as the model wrote it`,
      {
        problem: still === undefined ? 'not a name and JSON arguments' : still.message,
      },
    )
    return unrepaired
  }
  return {
    kind: 'repaired',
    name,
    arguments: text,
    by: typeof answer.by === 'string' ? answer.by : 'repairToolCall',
  }
}
