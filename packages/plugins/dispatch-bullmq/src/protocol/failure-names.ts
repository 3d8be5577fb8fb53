/**
 * `error.info.name` of the results remote dispatch itself produces, each under a stable
 * `error.info.code` from the tools package's `ToolErrorCodes`:
 *
 * | name                     | code                      | when                                                                  |
 * | ------------------------ | ------------------------- | --------------------------------------------------------------------- |
 * | `WorkerLost`             | `INTERRUPTED`             | the worker running the body stopped (its job lock expired) after it    |
 * |                          |                           | marked the body as begun (D11)                                        |
 * | `WorkerLost`             | `PIPELINE_FAILED`         | the workers that took the job stopped before marking its body, and it |
 * |                          |                           | could not be dispatched again (D12: 3 dispatches, or Redis refused)   |
 * | `QueueUnreachable`       | `INTERRUPTED`             | Redis could not be reached for `unreachableAfterMs` while waiting      |
 * | `JobLost`                | `INTERRUPTED`             | the job vanished from Redis (a restart without persistence, an       |
 * |                          |                           | eviction, a removal by hand) before it was answered                   |
 * | `DispatcherClosed`       | `INTERRUPTED`             | `dispatcher.close()` while the call waited                            |
 * | `RemoteNotStarted`       | `ABORTED_BEFORE_DISPATCH` | cancelled or past its deadline before any worker started the body     |
 * | `RemoteToolUnknown`      | `PIPELINE_FAILED`         | the worker has no tool of that name                                   |
 * | `RemoteArgumentsNotJson` | `PIPELINE_FAILED`         | the validated arguments are not lossless JSON (a schema made a `Date`) |
 * | `CallIdReused`           | `PIPELINE_FAILED`         | the job id is held by a different call (another tool or arguments)   |
 * | `DispatchFailed`         | `PIPELINE_FAILED`         | the job could not be enqueued (Redis refused or did not answer)       |
 * | `RemoteJobFailed`        | `INTERRUPTED`             | BullMQ failed the job for another reason, or the reply is unreadable  |
 * | `RemoteJobFailed`        | `PIPELINE_FAILED`         | the worker refused the job before running it (a malformed job)        |
 *
 * Every outcome after which the body may have run is `INTERRUPTED` ("may or may not have taken
 * effect"); `PIPELINE_FAILED` only where it certainly did not. A body's own outcomes keep the codes
 * a local body gets (`TOOL_FAILED`, `INVALID_TOOL_OUTPUT`, `TIMEOUT`, `ABORTED`).
 */
export const RemoteFailureNames = {
  WorkerLost: 'WorkerLost',
  QueueUnreachable: 'QueueUnreachable',
  JobLost: 'JobLost',
  DispatcherClosed: 'DispatcherClosed',
  RemoteNotStarted: 'RemoteNotStarted',
  RemoteToolUnknown: 'RemoteToolUnknown',
  RemoteArgumentsNotJson: 'RemoteArgumentsNotJson',
  CallIdReused: 'CallIdReused',
  DispatchFailed: 'DispatchFailed',
  RemoteJobFailed: 'RemoteJobFailed',
} as const

export type RemoteFailureName = (typeof RemoteFailureNames)[keyof typeof RemoteFailureNames]
