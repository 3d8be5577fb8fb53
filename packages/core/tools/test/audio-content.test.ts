import { describe, expect, it } from 'vitest'
import type { ToolResultContent } from '@deepseek-ai/dsh-llm'
import { call, codeOf, setup, tool } from './fixtures.ts'

// T71: audio is result content like an image: accepted where images are, checked, measured.

const WAV = Buffer.from('RIFF$\u0000\u0000\u0000WAVEfmt ', 'latin1').toString('base64')
const audio = { type: 'audio', mediaType: 'audio/wav', data: WAV } as const

function isDeepFrozen(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return true
  return Object.isFrozen(value) && Object.values(value).every(isDeepFrozen)
}

describe('audio in tool results (T71)', () => {
  it('T71: a tool’s content may hold audio: kept as it came, deep-frozen, lossless JSON', async () => {
    const { ctx } = setup()
    ctx.tools.register({
      ...tool('listen', () => ({ seconds: 0 })),
      toContent: () => [{ type: 'text', text: 'recorded:' }, audio],
    })
    const result = await ctx.tools.execute(call('listen'))
    expect(result).toEqual({
      isError: false,
      content: [{ type: 'text', text: 'recorded:' }, audio],
      value: { seconds: 0 },
    })
    expect(isDeepFrozen(result)).toBe(true)
    expect(JSON.parse(JSON.stringify(result))).toEqual(result)
  })

  it('T71: a wrapper’s result (untrusted) may carry audio too', async () => {
    const { ctx } = setup()
    ctx.tools.register(tool('listen'))
    ctx.on('tools/execute', () => ({ isError: false, content: [audio] }))
    const result = await ctx.tools.execute(call('listen'))
    expect(result).toEqual({ isError: false, content: [audio] })
  })

  it.each([
    [
      'a non-audio media type',
      { ...audio, mediaType: 'image/png' },
      'content[1].mediaType must be an audio media type such as "audio/wav", got the string "image/png"',
    ],
    [
      'data that is not base64',
      { ...audio, data: 'UklG Rg==' },
      'content[1].data must be base64: character 4 is " "',
    ],
    [
      'a url instead of data',
      { type: 'audio', mediaType: 'audio/mpeg', url: 'https://example.invalid/a.mp3' },
      'content[1].data must be a base64 string (audio by "url" is not supported), got undefined',
    ],
    ['empty data', { ...audio, data: '' }, 'content[1].data must not be empty'],
  ])(
    'T71: an audio block with %s is INVALID_TOOL_OUTPUT naming the block and the field',
    async (_label, block, problem) => {
      const { ctx } = setup()
      ctx.tools.register({
        ...tool('listen', () => 'v'),
        toContent: () => [{ type: 'text', text: 'x' }, block] as unknown as ToolResultContent[],
      })
      const result = await ctx.tools.execute(call('listen'))
      expect(codeOf(result)).toBe('INVALID_TOOL_OUTPUT')
      expect(result.isError && result.error.message).toBe(
        `Tool "listen" produced invalid content: ${problem}`,
      )
    },
  )

  it('T71: audio data counts toward maxResultBytes, as image data does', async () => {
    const limit = 1_000
    const { ctx } = setup({ maxResultBytes: limit })
    const big = Buffer.alloc(900).toString('base64') // 1 200 characters of base64
    ctx.tools.register({ ...tool('listen', () => 'v'), toContent: () => [{ ...audio, data: big }] })
    ctx.tools.register({
      ...tool('short', () => 'v'),
      toContent: () => [{ ...audio, data: Buffer.alloc(600).toString('base64') }],
    })
    const result = await ctx.tools.execute(call('listen'))
    expect(codeOf(result)).toBe('INVALID_TOOL_OUTPUT')
    expect(result.isError && result.error.message).toBe(
      `Tool "listen" returned 1200 bytes of result; the limit is 1000 bytes (maxResultBytes). Return less (a page, a summary, a path to the full data) or raise the limit.`,
    )
    expect(codeOf(await ctx.tools.execute(call('short')))).toBe('OK')
  })
})
