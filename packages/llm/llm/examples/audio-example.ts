import {
  audioBlock,
  audioProblem,
  audioStandIn,
  createToolResultMessage,
  textBlock,
} from '@deepseek-ai/dsh-llm'

// Audio is a block like an image: an audio/* media type and base64 data.
const clip = audioBlock({ mediaType: 'audio/wav', data: 'UklGRiQAAABXQVZFZm10IA==' })
const answer = createToolResultMessage({
  callId: 'call_1',
  content: [textBlock('The recording:'), clip],
  isError: false,
})
console.log(answer.content[0]?.content[1]) // { type: 'audio', mediaType: 'audio/wav', data: 'UklGRiQAAABXQVZFZm10IA==' }

// What a provider that cannot take audio is sent instead.
console.log(audioStandIn(clip)) // [audio (audio/wav), 16 bytes, not shown]

// Anything else is refused, naming the field.
console.log(audioProblem({ mediaType: 'image/png', data: 'AAAA' })) // mediaType must be an audio media type such as "audio/wav", got the string "image/png"
const refused = (() => {
  try {
    return audioBlock({ mediaType: 'audio/mpeg', data: 'not base64!' })
  } catch (error) {
    return (error as Error).message
  }
})()
console.log(refused) // audioBlock(options): options.data must be base64: character 3 is " "
