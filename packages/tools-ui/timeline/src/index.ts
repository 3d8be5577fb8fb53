export { buildTimeline } from './build-timeline.ts'
export type { BuildTimelineOptions } from './build-timeline.ts'
export { renderTimelineHtml } from './render-timeline-html.ts'
export { embedJson } from './embed-json.ts'
export { TimelineError } from './errors.ts'
export type { TimelineErrorCode } from './errors.ts'
export type {
  CallMode,
  CallStatus,
  Timeline,
  TimelineBarrier,
  TimelineCall,
  TimelineRow,
  TimelineRowKind,
  TimelineStep,
  TimelineStepStats,
  TimelineText,
} from './types.ts'
export { runTimelineCli } from './cli/run-timeline-cli.ts'
export type { TimelineCliIo } from './cli/run-timeline-cli.ts'
