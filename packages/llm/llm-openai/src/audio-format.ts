/**
 * The `input_audio` format chat completions takes for an audio media type: `wav` or `mp3`, the only
 * two the API reference lists (`ChatCompletionContentPartInputAudio.InputAudio.format`), or
 * `undefined` for any other audio (it goes as its text stand-in). Parameters and case are ignored.
 */
export function inputAudioFormat(mediaType: string): 'wav' | 'mp3' | undefined {
  const base = mediaType.split(';', 1)[0]!.trim().toLowerCase()
  switch (base) {
    case 'audio/wav':
    case 'audio/x-wav':
    case 'audio/wave':
    case 'audio/vnd.wave':
      return 'wav'
    case 'audio/mpeg':
    case 'audio/mp3':
      return 'mp3'
    default:
      return undefined
  }
}
