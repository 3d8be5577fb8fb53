import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { houseProblems, readImportGraph, srcOf } from './support/import-graph.ts'

/**
 * The rooms of `src/`, lowest first (docs/architecture.md, "The agent loop's rooms"): a file may
 * import its own room and the rooms below it, never one above, and no import cycle exists, type-only
 * imports included. The root (`''`) is the agent's face: `createAgent`, `executeToolCalls`, the
 * option checks and `index.ts`.
 */
const ORDER = ['base', 'log', 'exchanges', 'step-batch', 'step', 'turn', ''] as const

describe('the rooms of agent-loop/src', () => {
  it('architecture: no upward import between rooms and no import cycle, type-only included', () => {
    const graph = readImportGraph(srcOf(fileURLToPath(import.meta.url)))
    expect(graph.size).toBeGreaterThan(40)
    expect(houseProblems(graph, ORDER)).toEqual([])
  })

  it('architecture: the check sees a type-only cycle, an upward import and an unknown room', () => {
    const graph = new Map<string, string[]>([
      ['base/a.ts', ['base/b.ts']],
      // `import type` of a.ts: a cycle all the same
      ['base/b.ts', ['base/a.ts']],
      ['log/c.ts', ['step/d.ts']],
      ['step/d.ts', ['log/c.ts']],
      ['attic/e.ts', []],
      ['f.ts', ['base/a.ts', 'turn/gone.ts']],
    ])
    expect(houseProblems(graph, ORDER)).toEqual([
      'log/c.ts imports step/d.ts: room "step" is above "log"',
      'attic/e.ts: room "attic" is not in the order',
      'f.ts imports turn/gone.ts, which is not a source file',
      'cycle: base/a.ts → base/b.ts → base/a.ts',
      'cycle: log/c.ts → step/d.ts → log/c.ts',
    ])
  })
})
