import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { srcOf } from './support/import-graph.ts'
import { programOf, spreadAdditions } from './support/spread-additions.ts'

const src = srcOf(fileURLToPath(import.meta.url))
const tsconfig = join(src, '..', '..', '..', '..', 'tsconfig.json')

/** What runs once per step or per call: the rooms `step/` and `step-batch/`, a turn's loop, `executeToolCalls`. */
const HOT = [
  ...(readdirSync(join(src, 'step')) as string[]).map((file) => join(src, 'step', file)),
  ...(readdirSync(join(src, 'step-batch')) as string[]).map((file) => join(src, 'step-batch', file)),
  join(src, 'turn', 'run-turn.ts'),
  join(src, 'execute-tool-calls.ts'),
  join(src, 'read-execute-tool-calls-options.ts'),
]

const SAMPLE = join(src, '..', 'test', 'fixtures', 'spread-additions-sample.ts')

/** The type checker over every file of the package it needs (seconds on a loaded machine: built once). */
let program: ReturnType<typeof programOf> | undefined
const checked = () => (program ??= programOf(tsconfig, [...HOT, SAMPLE]))
const SLOW = 60_000

describe('object literals on the per-step path', () => {
  it(
    'hot path: no literal opens with a spread and then adds a property the spread may lack (~1 µs each on Node 20)',
    () => {
      expect(HOT.length).toBeGreaterThan(25)
      expect(spreadAdditions(checked(), HOT)).toEqual([])
    },
    SLOW,
  )

  it(
    'the check tells an added property from an overwritten one, and sees a property a later spread brings',
    () => {
      const found = spreadAdditions(checked(), [SAMPLE]).map((line) => line.slice(SAMPLE.length + 1))
      expect(found).toEqual([
        '9: adds extra to a spread',
        '11: adds extra to a spread',
        '13: adds maybe to a spread',
        '15: adds count to a spread',
      ])
    },
    SLOW,
  )
})
