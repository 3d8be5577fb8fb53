/** The page's style sheet (inline, so the page needs nothing from the network). */
export const PAGE_STYLE = `
:root { color-scheme: light; --ink: #1f2328; --muted: #59636e; --line: #d1d9e0; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; color: var(--ink); background: #fff; }
main { padding: 20px 24px 40px; }
h1 { font-size: 20px; margin: 0 0 4px; word-break: break-all; }
h2 { font-size: 15px; margin: 0; }
.source { margin: 0 0 2px; color: var(--muted); font-size: 12px; word-break: break-all; }
.summary { margin: 0 0 10px; color: var(--muted); }
.legend { display: flex; flex-wrap: wrap; gap: 4px 16px; list-style: none; padding: 0; margin: 0 0 10px; color: var(--muted); font-size: 12px; }
.legend li { display: flex; align-items: center; gap: 6px; }
.note { max-width: 70em; margin: 4px 0; padding: 6px 10px; border-left: 3px solid #d4a72c; background: #fff8c5; font-size: 12px; }
.notes { font-size: 12px; color: #9a6700; }
.empty { color: var(--muted); }
.step { margin-top: 22px; }
.meta { margin: 2px 0 6px; color: var(--muted); font-size: 12px; }
svg.chart { display: block; font-size: 11px; }
.stripe { fill: #fff; }
.row:nth-child(even) .stripe { fill: #f6f8fa; }
.row.nested .stripe { fill: #f3f0ff; }
.row.not-started .stripe { fill: #f6f6f6; }
.row-label { fill: var(--muted); }
.axis line { stroke: #eaeef2; }
.axis text { fill: var(--muted); }
.barrier .band { fill: #8250df; fill-opacity: 0.08; }
.barrier .rule { stroke: #8250df; stroke-width: 2; }
.barrier.inferred .rule { stroke-dasharray: 5 3; }
.call { cursor: default; outline: none; }
.call .run { fill: #4c78a8; stroke: #fff; stroke-width: 1; }
.call.error .run { fill: #d1242f; }
.call.aborted .run { fill: #f58518; stroke: #8a4600; stroke-width: 1; stroke-dasharray: 3 2; }
.call.interrupted .run { fill: #b279a2; }
.call.no-result .run { fill: #fff; stroke: #59636e; stroke-width: 1.5; stroke-dasharray: 4 2; }
.call.no-result .name { fill: var(--ink); }
.call .wait { fill: #a6bcd4; }
.call .late { stroke: #59636e; stroke-width: 1.5; stroke-dasharray: 3 2; }
.call .mark { fill: #8c959f; stroke: #424a53; }
.call .name { fill: #fff; font-weight: 600; pointer-events: none; }
.call .outside .name { fill: var(--ink); font-weight: 500; }
.call:hover .run, .call:focus .run, .call:hover .mark, .call:focus .mark { stroke: #0d1117; stroke-width: 2; }
.swatch rect { fill: #4c78a8; }
.swatch.error rect { fill: #d1242f; }
.swatch.aborted rect { fill: #f58518; stroke: #8a4600; stroke-dasharray: 3 2; }
.swatch.interrupted rect { fill: #b279a2; }
.swatch.no-result rect { fill: #fff; stroke: #59636e; stroke-dasharray: 4 2; }
.swatch.not-started rect { fill: #8c959f; }
.swatch.wait rect { fill: #a6bcd4; }
.swatch.late rect { fill: #fff; stroke: #59636e; stroke-dasharray: 3 2; }
.swatch.barrier rect { fill: #8250df; fill-opacity: 0.15; stroke: #8250df; stroke-width: 2; }
.tip { position: fixed; z-index: 10; max-width: min(640px, 90vw); max-height: 70vh; overflow: auto; padding: 8px 10px; background: #fff; border: 1px solid var(--line); border-radius: 6px; box-shadow: 0 8px 24px rgba(31, 35, 40, 0.18); font-size: 12px; pointer-events: none; }
.tip[hidden] { display: none; }
.tip-head { display: flex; gap: 8px; align-items: baseline; margin-bottom: 4px; word-break: break-all; }
.tip-status { color: var(--muted); }
.tip-status.error, .tip-status.aborted { color: #d1242f; }
.tip-fact { display: flex; gap: 8px; }
.tip-label { color: var(--muted); min-width: 4.5em; }
.tip pre { margin: 2px 0 6px; padding: 4px 6px; background: #f6f8fa; border-radius: 4px; white-space: pre-wrap; word-break: break-all; max-height: 16em; overflow: auto; }
.tip-more { color: var(--muted); font-style: italic; }
`
