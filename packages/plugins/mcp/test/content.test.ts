import { describe, expect, it } from 'vitest'
import { mapContent } from '../src/map-content.ts'

describe('MCP content → result blocks', () => {
  it('T14/T71: text, images and audio map one to one', () => {
    expect(
      mapContent([
        { type: 'text', text: 'hello' },
        { type: 'image', data: 'AAAA', mimeType: 'image/jpeg' },
        { type: 'audio', data: 'AAAAAAAA', mimeType: 'audio/mpeg' },
      ]),
    ).toEqual([
      { type: 'text', text: 'hello' },
      { type: 'image', mediaType: 'image/jpeg', data: 'AAAA' },
      { type: 'audio', mediaType: 'audio/mpeg', data: 'AAAAAAAA' },
    ])
  })

  it('T71: an embedded audio resource is a note and the audio; audio that is not valid audio is its stand-in note', () => {
    expect(
      mapContent([
        { type: 'resource', resource: { uri: 'file:///a.ogg', mimeType: 'audio/ogg', blob: 'T2dnUw==' } },
        { type: 'audio', data: 'AAAAAAAA', mimeType: 'video/mp4' },
        { type: 'audio', data: 'not base64', mimeType: 'audio/wav' },
        { type: 'audio', mimeType: 'audio/wav' },
      ]),
    ).toEqual([
      { type: 'text', text: '[resource file:///a.ogg (audio/ogg)]' },
      { type: 'audio', mediaType: 'audio/ogg', data: 'T2dnUw==' },
      { type: 'text', text: '[audio (video/mp4), 6 bytes, not shown]' },
      { type: 'text', text: '[audio (audio/wav), 7 bytes, not shown]' },
      { type: 'text', text: '[audio (audio/wav), not shown]' },
    ])
  })

  it('T14: embedded resources become text under a note; other binary data is described, never inlined', () => {
    expect(
      mapContent([
        { type: 'resource', resource: { uri: 'mem://a', text: 'body' } },
        { type: 'resource', resource: { uri: 'mem://b', mimeType: 'application/pdf', blob: 'AAAAAA==' } },
        { type: 'resource', resource: { uri: 'mem://c' } },
        { type: 'resource', resource: 'not an object' },
        { type: 'resource_link', uri: 'mem://d', name: 'mem://d', description: 'the d file' },
      ]),
    ).toEqual([
      { type: 'text', text: '[resource mem://a]\nbody' },
      { type: 'text', text: '[resource mem://b (application/pdf): 4 bytes of binary data, not shown]' },
      { type: 'text', text: '[resource mem://c without text or data]' },
      { type: 'text', text: '[embedded resource without contents]' },
      { type: 'text', text: '[resource link mem://d - the d file]' },
    ])
  })

  it('T14: malformed and unknown blocks are notes, so one odd block never loses the rest of the answer', () => {
    expect(
      mapContent([
        null,
        { type: 'text', text: 7 },
        { type: 'image', data: 'AAAA' },
        { type: 'video', uri: 'x' },
        { type: 42 },
        { type: 'text', text: 'kept' },
      ]),
    ).toEqual([
      { type: 'text', text: '[a content block that is not an object, omitted]' },
      { type: 'text', text: '[a text block without text]' },
      { type: 'text', text: '[an image block without data or type]' },
      { type: 'text', text: '[content of type "video", not shown]' },
      { type: 'text', text: '[content of type "42", not shown]' },
      { type: 'text', text: 'kept' },
    ])
  })
})
