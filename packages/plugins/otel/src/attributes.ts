/**
 * Attribute, event and span names. Names under `gen_ai.*` and `error.type` follow the OpenTelemetry
 * GenAI semantic conventions v1.41.0 (the last release of the semantic-conventions repository that
 * carries them; status Development). Everything the conventions have no name for is under `dsh.*`.
 * Never renamed without a changeset: dashboards and queries match on them.
 */
export const OtelAttributes = {
  /** `execute_tool`, `invoke_agent` or `chat`. */
  GEN_AI_OPERATION_NAME: 'gen_ai.operation.name',
  GEN_AI_TOOL_NAME: 'gen_ai.tool.name',
  GEN_AI_TOOL_CALL_ID: 'gen_ai.tool.call.id',
  /** Always `function`: the harness runs the tool itself. */
  GEN_AI_TOOL_TYPE: 'gen_ai.tool.type',
  /** Opt-in (`captureArguments`): the arguments the body received, as JSON text, capped. */
  GEN_AI_TOOL_CALL_ARGUMENTS: 'gen_ai.tool.call.arguments',
  /** Opt-in (`captureResults`): the result's value (else its content), as JSON text, capped. */
  GEN_AI_TOOL_CALL_RESULT: 'gen_ai.tool.call.result',
  GEN_AI_AGENT_NAME: 'gen_ai.agent.name',
  GEN_AI_PROVIDER_NAME: 'gen_ai.provider.name',
  GEN_AI_REQUEST_MODEL: 'gen_ai.request.model',
  /** On a model call: whether the step streamed (`model.stream`, eager dispatch) or called `model.step`. */
  GEN_AI_REQUEST_STREAM: 'gen_ai.request.stream',
  GEN_AI_RESPONSE_FINISH_REASONS: 'gen_ai.response.finish_reasons',
  GEN_AI_USAGE_INPUT_TOKENS: 'gen_ai.usage.input_tokens',
  GEN_AI_USAGE_OUTPUT_TOKENS: 'gen_ai.usage.output_tokens',
  GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS: 'gen_ai.usage.cache_read.input_tokens',
  GEN_AI_USAGE_REASONING_OUTPUT_TOKENS: 'gen_ai.usage.reasoning.output_tokens',
  /** A tool call's `error.info.code` (`TIMEOUT`, `DENIED`, …); a model call's error code or name. */
  ERROR_TYPE: 'error.type',

  /** The turn and step numbers a call or span belongs to. */
  DSH_TURN: 'dsh.turn',
  DSH_STEP: 'dsh.step',
  /** The name of the scope a call ran in (the agent's name for an agent's calls). */
  DSH_SCOPE: 'dsh.scope',
  /** A nested (Code Mode) call: the id of the `run_code` call that made it. */
  DSH_TOOL_PARENT_CALL_ID: 'dsh.tool.parent_call_id',
  /** `success` or `error`. */
  DSH_TOOL_OUTCOME: 'dsh.tool.outcome',
  /** The failure's `error.info.code` (same as `error.type`) and `error.info.name`. */
  DSH_TOOL_ERROR_CODE: 'dsh.tool.error.code',
  DSH_TOOL_ERROR_NAME: 'dsh.tool.error.name',
  /** Opt-in (`captureResults`): the failure's message, capped. */
  DSH_TOOL_ERROR_MESSAGE: 'dsh.tool.error.message',
  /** The result asked to end the turn. */
  DSH_TOOL_CONCLUDES_TURN: 'dsh.tool.concludes_turn',
  /**
   * The call started while the model was still streaming its message (eager dispatch, T40): `true`
   * or `false` for an agent's call whose `tool-call-start` event reached the tracer before the
   * call's result; absent otherwise.
   */
  DSH_TOOL_DURING_STREAM: 'dsh.tool.during_stream',
  /** On a late-outcome span: `value`, `error` or `abandoned`. */
  DSH_TOOL_LATE_OUTCOME: 'dsh.tool.late_outcome',
  /** The span was still open when the plugin or the agent tracer was disposed. */
  DSH_UNFINISHED: 'dsh.unfinished',
  DSH_TURN_RESUMED: 'dsh.turn.resumed',
  /** Why the turn ended: `completed`, `concluded`, `max-steps`, `aborted` or `error`. */
  DSH_TURN_REASON: 'dsh.turn.reason',
  DSH_TURN_STEPS: 'dsh.turn.steps',
  DSH_STEP_TOOL_CALLS: 'dsh.step.tool_calls',
  DSH_STEP_CONCLUDES_TURN: 'dsh.step.concludes_turn',
  /**
   * A streamed step with tool calls: what eager dispatch did (the step-end event's `eager`
   * figures). Calls queued and started before the stream ended, the tool time moved ahead of the
   * stream's end (ms, summed over calls) and a lower bound on the time saved on the step (ms).
   */
  DSH_STEP_EAGER_QUEUED_DURING_STREAM: 'dsh.step.eager.queued_during_stream',
  DSH_STEP_EAGER_STARTED_DURING_STREAM: 'dsh.step.eager.started_during_stream',
  DSH_STEP_EAGER_OVERLAP_MS: 'dsh.step.eager.overlap_ms',
  DSH_STEP_EAGER_SAVED_MS: 'dsh.step.eager.saved_ms',
  /** A model call that did not answer: `aborted` or `error`. */
  DSH_MODEL_OUTCOME: 'dsh.model.outcome',
  /** The model call's attempt in its step (1 unless the loop retried it). */
  DSH_MODEL_ATTEMPT: 'dsh.model.attempt',
  /** On a `dsh.model.retry` step event: the wait before the next attempt. */
  DSH_MODEL_RETRY_IN_MS: 'dsh.model.retry_in_ms',
  /** On `dsh.approval.*` step events (durable approvals): the call and the answer. */
  DSH_APPROVAL_CALL_ID: 'dsh.approval.call_id',
  DSH_APPROVAL_TOOL: 'dsh.approval.tool',
  DSH_APPROVAL_ANSWER: 'dsh.approval.answer',
} as const

/**
 * Events on a tool call's span, one per pipeline stage the call reached, at the moment it began
 * (so a stage lasts until the next event). A call skips the stages it never reaches: a denied call
 * has no `dsh.dispatch`, a call without `ask` no `dsh.approval`.
 */
export const OtelEvents = {
  /** The `tools/pre-execute` waterfall began (the span starts here too). */
  PRE_EXECUTE: 'dsh.pre_execute',
  /** Pre-execute answered `ask`: the approval service was asked. */
  APPROVAL: 'dsh.approval',
  /**
   * The guards are running: marked right after pre-execute allowed the call, or, after an approval,
   * by the plugin's own abstaining guard (which runs after the guards of narrower scopes).
   */
  GUARDS: 'dsh.guards',
  /** The `tools/execute` waterfall began (outermost wrapper). */
  DISPATCH: 'dsh.dispatch',
  /** The body is about to run (innermost wrapper, inside the timeout wrapper). */
  BODY_START: 'dsh.body.start',
  /** The body settled, or was cut off by its timeout or an abort (then a late outcome may follow). */
  BODY_END: 'dsh.body.end',
  /** The `tools/post-execute` waterfall began. */
  POST_EXECUTE: 'dsh.post_execute',
  /** The final result was committed (`tools/result`); the span ends here. */
  RESULT: 'dsh.result',
} as const

/** The operation names of the conventions, as used here. */
export const GenAiOperations = {
  EXECUTE_TOOL: 'execute_tool',
  INVOKE_AGENT: 'invoke_agent',
  CHAT: 'chat',
} as const

/** The version of the GenAI semantic conventions the names above follow. */
export const GEN_AI_SEMCONV_VERSION = '1.41.0'
