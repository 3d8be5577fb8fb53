import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createContext, silentLogger } from '@deepseek-ai/dsh-context'
import {
  installSystemPrompt,
  installTools,
  type PresentationMode,
  type SystemPromptSection,
} from '@deepseek-ai/dsh-tools'
import { defineJsonSchemaTool } from '@deepseek-ai/dsh-tools/json-schema'
import { featureTools } from './sdk-fixtures.ts'

const MODES: readonly PresentationMode[] = ['native', 'code', 'both']
const NAMES = ['alpha', 'beta', 'gamma', 'delta', 'other-tool', '3d', 'Zed', '_under']

function simpleTool(name: string) {
  return defineJsonSchemaTool({
    name,
    description: `The ${name} tool`,
    parameters: {
      type: 'object',
      properties: { [`${name}_arg`]: { type: 'string', description: `argument of ${name}` } },
      required: [`${name}_arg`],
      additionalProperties: false,
    },
    execute: () => name,
  })
}

// Definitions are plain values: building them once keeps each run to registration and assembly.
const TOOLS = [...NAMES.map(simpleTool), ...featureTools()]
const toolCount = TOOLS.length

interface Built {
  readonly tools: string
  readonly text: string | undefined
  readonly sdk: string
}

/** A fresh tree registering the same tools and sections in the order given. */
function build(
  mode: PresentationMode,
  toolOrder: readonly number[],
  sections: readonly SystemPromptSection[],
  sectionOrder: readonly number[],
): Built {
  const ctx = createContext({ logger: silentLogger })
  installTools(ctx, { defaultPresentation: mode })
  installSystemPrompt(ctx)
  for (const i of toolOrder) ctx.tools.register(TOOLS[i]!)
  for (const i of sectionOrder) ctx.systemPrompt!.section(sections[i]!)
  const agent = ctx.createScope({ name: 'agent' })
  const prompt = agent.systemPrompt!
  return {
    tools: JSON.stringify(prompt.tools('p')),
    text: prompt.text({ provider: 'p', system: 'You are a test.' }),
    sdk: prompt.sdk(),
  }
}

describe('deterministic assembly', () => {
  it('T5: the same registry gives byte-identical prompt text, schemas and SDK, whatever the registration order', () => {
    const sections = fc.uniqueArray(
      fc.record({
        name: fc.string({ minLength: 1, maxLength: 6 }).filter((n) => n.trim() !== '' && n !== 'code-mode'),
        order: fc.integer({ min: -3, max: 3 }),
        body: fc.string({ maxLength: 12 }),
      }),
      { selector: (s) => s.name, maxLength: 6 },
    )
    fc.assert(
      fc.property(
        fc.constantFrom(...MODES),
        fc.shuffledSubarray([...Array(toolCount).keys()]),
        sections,
        fc.nat(),
        fc.nat(),
        (mode, chosen, specs, seedA, seedB) => {
          const asSections = specs.map((s) => ({ name: s.name, order: s.order, text: () => s.body }))
          const permute = (items: readonly number[], seed: number): number[] =>
            [...items].sort((a, b) => ((a * 7919 + seed) % 101) - ((b * 7919 + seed) % 101) || a - b)
          const indexes = [...asSections.keys()]
          const first = build(mode, chosen, asSections, permute(indexes, seedA))
          const second = build(mode, permute(chosen, seedB), asSections, permute(indexes, seedB))
          expect(second).toEqual(first)
        },
      ),
      { numRuns: 60 },
    )
  }, 30_000) // 60 fresh registries: a safety net on a busy machine, not a timing check
})
