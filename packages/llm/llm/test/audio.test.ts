import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  LlmError,
  audioBlock,
  audioProblem,
  audioStandIn,
  base64ByteLength,
  createToolResultMessage,
  userMessage,
} from '@deepseek-ai/dsh-llm'

/** A 44-byte WAV header (RIFF, PCM, 8 kHz mono, no samples): real audio bytes. */
const WAV = Buffer.from(
  ['52494646', '24000000', '57415645', '666d7420', '10000000', '01000100', '401f0000', '401f0000', '01000800']
    .concat(['64617461', '00000000'])
    .join(''),
  'hex',
).toString('base64')

function thrown(run: () => unknown): LlmError {
  try {
    run()
  } catch (error) {
    if (LlmError.isInstance(error)) return error
    throw error
  }
  throw new Error('did not throw')
}

describe('audio blocks (T71)', () => {
  it('T71: audioBlock builds a block that tool results and user messages carry, losslessly as JSON', () => {
    const audio = audioBlock({ mediaType: 'audio/wav', data: WAV })
    expect(audio).toEqual({ type: 'audio', mediaType: 'audio/wav', data: WAV })
    const result = createToolResultMessage({
      callId: 'c',
      content: [{ type: 'text', text: 'the recording:' }, audio],
      isError: false,
    })
    expect(result.content[0]!.content[1]).toEqual(audio)
    expect(JSON.parse(JSON.stringify(result))).toEqual(result)
    const user = userMessage([{ type: 'text', text: 'What is said here?' }, audio])
    expect(user.content).toEqual([{ type: 'text', text: 'What is said here?' }, audio])
    expect(JSON.parse(JSON.stringify(user))).toEqual(user)
  })

  it('T71: media types are audio/<subtype>, parameters allowed', () => {
    for (const mediaType of ['audio/wav', 'audio/mpeg', 'audio/ogg; codecs=opus', 'audio/L16;rate=16000'])
      expect(audioProblem({ mediaType, data: WAV }), mediaType).toBeUndefined()
  })

  it.each([
    [
      { mediaType: 'image/png', data: WAV },
      'mediaType must be an audio media type such as "audio/wav", got the string "image/png"',
    ],
    [
      { mediaType: 'audio/', data: WAV },
      'mediaType must be an audio media type such as "audio/wav", got the string "audio/"',
    ],
    [{ mediaType: 'audio/wav\n', data: WAV }, 'mediaType must be an audio media type'],
    [{ data: WAV }, 'mediaType must be an audio media type such as "audio/wav", got undefined'],
    [{ mediaType: 'audio/wav' }, 'data must be a base64 string, got undefined'],
    [
      { mediaType: 'audio/wav', url: 'https://example.invalid/a.wav' },
      'data must be a base64 string (audio by "url" is not supported), got undefined',
    ],
    [{ mediaType: 'audio/wav', data: '' }, 'data must not be empty'],
    [{ mediaType: 'audio/wav', data: 'UklG Rg==' }, 'data must be base64: character 4 is " "'],
    [{ mediaType: 'audio/wav', data: 'UklGR-==' }, 'data must be base64: character 5 is "-"'],
    [{ mediaType: 'audio/wav', data: 'UklGRg=' }, 'data must be base64: its length 7 is not a multiple of 4'],
  ])('T71: a bad block is refused naming the field and what it held (%#)', (block, message) => {
    expect(audioProblem(block)).toContain(message)
    const error = thrown(() => audioBlock(block as never))
    expect(error.code).toBe('INVALID_ARGUMENT')
    expect(error.message).toContain(`audioBlock(options): options.${message}`)
    const inResult = thrown(() =>
      createToolResultMessage({
        callId: 'c',
        content: [{ type: 'audio', ...block }] as never,
        isError: false,
      }),
    )
    expect(inResult.message).toContain(`options.content[0].${message}`)
    const inUser = thrown(() => userMessage([{ type: 'audio', ...block }] as never))
    expect(inUser.message).toContain(`content[0].${message}`)
  })

  it('T71: each field is read once: a getter cannot pass the check and then change', () => {
    let reads = 0
    const shifty = {
      type: 'audio',
      get mediaType() {
        reads++
        return reads === 1 ? 'audio/wav' : 'image/png'
      },
      data: WAV,
    }
    expect(audioBlock(shifty)).toEqual({ type: 'audio', mediaType: 'audio/wav', data: WAV })
    reads = 0
    const [block] = userMessage([shifty as never]).content
    expect(block).toEqual({ type: 'audio', mediaType: 'audio/wav', data: WAV })
    expect(reads).toBe(1)
  })

  it('T71: any bytes encoded by Node are accepted, and the size is what Node decodes (oracle: Buffer)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 1, maxLength: 300 }), (bytes) => {
        const data = Buffer.from(bytes).toString('base64')
        expect(audioProblem({ mediaType: 'audio/mpeg', data })).toBeUndefined()
        expect(base64ByteLength(data)).toBe(bytes.length)
      }),
    )
  })

  it('T71: what is accepted is padded base64 that decodes to the size the stand-in names (oracle: Buffer)', () => {
    const alphabet = fc.constantFrom(
      ...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=-_ \n'.split(''),
    )
    fc.assert(
      fc.property(fc.string({ unit: alphabet, minLength: 1, maxLength: 40 }), (data) => {
        const problem = audioProblem({ mediaType: 'audio/wav', data })
        const canonical = Buffer.from(data, 'base64').toString('base64') === data
        if (canonical) expect(problem).toBeUndefined()
        if (problem === undefined) {
          expect(data.length % 4).toBe(0)
          expect(/^[A-Za-z0-9+/]*={0,2}$/.test(data)).toBe(true)
          expect(base64ByteLength(data)).toBe(Buffer.from(data, 'base64').length)
        }
      }),
      { numRuns: 2000 },
    )
  })

  it('T72: the stand-in names the type and the decoded size', () => {
    expect(audioStandIn({ mediaType: 'audio/wav', data: WAV })).toBe(
      '[audio (audio/wav), 44 bytes, not shown]',
    )
    expect(audioStandIn({ mediaType: 'audio/mpeg', data: 'AAAAAAAA' })).toBe(
      '[audio (audio/mpeg), 6 bytes, not shown]',
    )
  })
})
