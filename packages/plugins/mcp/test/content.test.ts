import { describe, expect, it } from 'vitest'
import { mapContent } from '../src/map-content.ts'

describe('MCP content → result blocks', () => {
  it('T14: text and images map one to one', () => {
    expect(
      mapContent([
        { type: 'text', text: 'hello' },
        { type: 'image', data: 'AAAA', mimeType: 'image/jpeg' },
      ]),
    ).toEqual([
      { type: 'text', text: 'hello' },
      { type: 'image', mediaType: 'image/jpeg', data: 'AAAA' },
    ])
  })

  it('T14: embedded resources become text under a note; binary data is described, never inlined', () => {
    expect(
      mapContent([
        { type: 'resource', resource: { uri: 'mem://a', text: 'body' } },
        { type: 'resource', resource: { uri: 'mem://b', mimeType: 'application/pdf', blob: 'AAAAAA==' } },
        { type: 'resource', resource: { uri: 'mem://c' } },
        { type: 'resource', resource: 'not an object' },
        { type: 'resource_link', uri: 'mem://d', name: 'mem://d', description: 'the d file' },
        { type: 'audio', data: 'AAAAAAAA', mimeType: 'audio/mpeg' },
      ]),
    ).toEqual([
      { type: 'text', text: '[resource mem://a]\nbody' },
      { type: 'text', text: '[resource mem://b (application/pdf): 4 bytes of binary data, not shown]' },
      { type: 'text', text: '[resource mem://c without text or data]' },
      { type: 'text', text: '[embedded resource without contents]' },
      { type: 'text', text: '[resource link mem://d - the d file]' },
      { type: 'text', text: '[audio (audio/mpeg), 6 bytes, not shown]' },
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
