import {
  assistantMessage,
  createToolResultMessage,
  textBlock,
  toolCallBlock,
  userMessage,
  type Message,
} from '@deepseek-ai/dsh-llm'
import { describe, expect, it } from 'vitest'
import { createStoryModel } from '../src/model/create-story-model.ts'
import { nextStoryMove, STORY_PROMPTS } from '../src/model/story-script.ts'

const call = (id: string, name: string, args: object) => toolCallBlock({ id, name, args })
const result = (callId: string, text: string, isError = false): Message => ({
  role: 'tool',
  content: createToolResultMessage({ callId, content: text, isError }).content,
})

describe('the scripted story (decided from the history alone, so another process can carry on)', () => {
  it('plays the tour: eleven calls, then the write between two reads, then the answer built from the results', () => {
    const start = [userMessage(STORY_PROMPTS.tour)]
    const first = nextStoryMove(start)
    expect(first.calls.map((c) => c.name)).toEqual([
      ...['list_docs', 'read_doc', 'read_doc', 'grep_docs', 'calculate', 'clock'],
      ...['long_task', 'long_task', 'check_service', 'read_doc', 'calculate'],
    ])
    const history: Message[] = [
      ...start,
      assistantMessage([call('c1', 'list_docs', {}), call('c5', 'calculate', { expression: '(3 + 4) * 6' })]),
      result('c1', 'a.md (1 bytes)\nb.md (2 bytes)'),
      result('c5', '(3 + 4) * 6 = 42'),
    ]
    const second = nextStoryMove(history)
    expect(second.calls.map((c) => c.name)).toEqual(['read_doc', 'write_note', 'grep_docs'])
    expect(second.calls[1]!.args['text']).toContain('Files: a.md, b.md\n')
    expect(second.calls[1]!.args['text']).toContain('Arithmetic: (3 + 4) * 6 = 42\n')
    const done = nextStoryMove([
      ...history,
      assistantMessage([call('w', 'write_note', { name: 'tour.md' })]),
      result('w', 'wrote 9 bytes'),
    ])
    expect(done.calls).toEqual([])
    expect(done.text).toContain('- The note: wrote 9 bytes')
  })

  it('carries on: redoes exactly the calls an abort or a stopped process cut short', () => {
    const history: Message[] = [
      userMessage(STORY_PROMPTS.nightly),
      assistantMessage([
        call('n1', 'long_task', { job: 'backup', steps: 3 }),
        call('n2', 'clock', {}),
        call('n3', 'long_task', { job: 'stats', steps: 1 }),
        call('n4', 'check_service', { name: 'db' }),
      ]),
      result('n1', 'Tool "long_task" was aborted before it finished.', true),
      result('n2', 'Tool call "clock" was cancelled before it started.', true),
      result(
        'n3',
        'Tool call "long_task" was interrupted: the process stopped before its result was recorded, and the session was resumed.',
        true,
      ),
      result('n4', 'Tool "check_service" failed: refused', true),
      userMessage(STORY_PROMPTS.carryOn),
    ]
    const redo = nextStoryMove(history)
    expect(redo.text).toBe('3 calls were interrupted; running them again.')
    expect(redo.calls).toEqual([
      { name: 'long_task', args: { job: 'backup', steps: 3 } },
      { name: 'clock', args: {} },
      { name: 'long_task', args: { job: 'stats', steps: 1 } },
    ])
    const nothing = nextStoryMove([
      userMessage(STORY_PROMPTS.tour),
      assistantMessage([textBlock('done')]),
      userMessage(STORY_PROMPTS.carryOn),
    ])
    expect(nothing).toEqual({
      text: 'I found nothing that was interrupted, so there is nothing to carry on with.',
      calls: [],
    })
    // stopped while the model was still thinking: the scene is taken up again
    expect(
      nextStoryMove([userMessage(STORY_PROMPTS.nightly), userMessage(STORY_PROMPTS.carryOn)]).calls,
    ).toHaveLength(4)
  })

  it('answers a question it has no script for by saying what it is', () => {
    expect(nextStoryMove([userMessage('What is the capital of France?')]).text).toMatch(
      /^I am the demo’s scripted model/,
    )
  })

  it('T40: streams its text, then each call as a separate part, with ids unique in the session', async () => {
    const model = createStoryModel({ thinkMs: 0 })
    const messages = [userMessage(STORY_PROMPTS.nightly)]
    const parts = []
    for await (const part of model.stream!({ messages, tools: [] })) parts.push(part)
    expect(parts.map((p) => p.type)).toEqual([
      'text-delta',
      'tool-call',
      'tool-call',
      'tool-call',
      'tool-call',
      'finish',
    ])
    const finish = parts.at(-1)
    expect(finish?.type === 'finish' && finish.response.finishReason).toBe('tool-calls')
    expect(parts.flatMap((p) => (p.type === 'tool-call' ? [p.call.id] : []))).toEqual([
      'call_1_1',
      'call_1_2',
      'call_1_3',
      'call_1_4',
    ])
    const later = await model.step({
      messages: [...messages, assistantMessage([textBlock('x')]), userMessage(STORY_PROMPTS.nightly)],
      tools: [],
    })
    expect(
      later.message.content.filter((p) => p.type === 'tool-call').map((p) => p.type === 'tool-call' && p.id),
    ).toEqual(['call_2_1', 'call_2_2', 'call_2_3', 'call_2_4'])
    const aborted = new AbortController()
    aborted.abort(new Error('stop'))
    await expect(
      createStoryModel({ thinkMs: 50 }).step({ messages, tools: [], signal: aborted.signal }),
    ).rejects.toThrow('stop')
  })
})
