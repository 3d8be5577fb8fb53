import { createHash } from 'node:crypto'
import { describeValue } from '@deepseek-ai/dsh-llm'
import { embedJson } from './embed-json.ts'
import { TimelineError } from './errors.ts'
import { PAGE_STYLE } from './page/page-style.ts'
import { timelineClient } from './page/timeline-client.ts'
import type { Timeline } from './types.ts'

/** The id of the element holding the timeline's JSON. */
export const TIMELINE_DATA_ID = 'dsh-timeline-data'

const SCRIPT = `(${timelineClient.toString()})(document);`

const sha256 = (text: string): string =>
  `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`

/**
 * Only this page's own script and style may run: even if some session text were ever parsed as
 * markup, a script or handler it carried would be refused, and nothing may be loaded from anywhere.
 */
const POLICY = [
  "default-src 'none'",
  `script-src ${sha256(SCRIPT)}`,
  `style-src ${sha256(PAGE_STYLE)}`,
  "base-uri 'none'",
  "form-action 'none'",
].join('; ')

/**
 * A self-contained HTML page that draws `timeline` (from `buildTimeline`): inline style and
 * script, no network, a Content-Security-Policy that allows only them. The timeline travels as JSON
 * in a `<script type="application/json">` element, escaped so no string can close it, and the page
 * draws it with `createElementNS` and `textContent` only: session content is never parsed as HTML.
 *
 * @example
 * writeFileSync('timeline.html', renderTimelineHtml(buildTimeline(session.events())))
 */
export function renderTimelineHtml(timeline: Timeline): string {
  if (
    typeof timeline !== 'object' ||
    timeline === null ||
    !Array.isArray((timeline as { steps?: unknown }).steps) ||
    typeof (timeline as { totals?: unknown }).totals !== 'object'
  ) {
    throw new TimelineError({
      code: 'INVALID_ARGUMENT',
      message: `renderTimelineHtml(timeline): timeline must be what buildTimeline returns, got ${describeValue(timeline)}`,
    })
  }
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${POLICY}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="@deepseek-ai/dsh-timeline">
<title>dsh session timeline</title>
<style>${PAGE_STYLE}</style>
</head>
<body>
<noscript>This page draws the timeline with JavaScript.</noscript>
<script type="application/json" id="${TIMELINE_DATA_ID}">${embedJson(timeline)}</script>
<script>${SCRIPT}</script>
</body>
</html>
`
}
