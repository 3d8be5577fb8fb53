import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { ChatCompletionsError } from '@deepseek-ai/dsh-llm-openai'
import { deferred } from '../../../../test-support/deferred.ts'
import { textChunks, toolCallChunks } from './support/fixtures.ts'
import { modelFor, simpleRequest } from './support/model.ts'
import { startReplayServer, type ReplayServer } from '../../../../test-support/replay-server.ts'
import { sseText, writePiece, writeSseHead } from './support/sse.ts'

let server: ReplayServer
beforeEach(async () => {
  server = await startReplayServer()
})
afterEach(async () => {
  await server.close()
})

/** Streams the first `count` chunks, then holds the connection open until the client closes it. */
function streamThenHold(chunks: readonly unknown[], count: number) {
  return async (res: Parameters<Parameters<ReplayServer['respond']>[0]>[0]) => {
    writeSseHead(res)
    await writePiece(res, sseText(chunks.slice(0, count), { done: false }))
  }
}

describe('abort', () => {
  it('aborting mid-stream rejects with ABORTED and closes the HTTP connection (the server sees it)', async () => {
    server.respond(streamThenHold(textChunks, 2))
    const controller = new AbortController()
    const reason = new Error('user pressed Ctrl-C')
    const seen: string[] = []
    let error: unknown
    try {
      for await (const part of modelFor(server).stream({ ...simpleRequest, signal: controller.signal })) {
        seen.push(part.type)
        controller.abort(reason)
      }
    } catch (e) {
      error = e
    }
    expect(seen).toEqual(['text-delta'])
    expect(ChatCompletionsError.isInstance(error) && error.code).toBe('ABORTED')
    expect((error as Error).cause).toBe(reason)
    await server.requests[0]!.closed
  })

  it('an abort while the consumer is not reading still closes the connection at once', async () => {
    server.respond(streamThenHold(toolCallChunks(), 3))
    const controller = new AbortController()
    const stream = modelFor(server).stream({ ...simpleRequest, signal: controller.signal })
    const first = await stream.next()
    expect(first.value).toMatchObject({ type: 'reasoning-delta' })
    controller.abort()
    // No next() call: the connection closes anyway.
    await server.requests[0]!.closed
    await expect(stream.next()).rejects.toMatchObject({ code: 'ABORTED' })
  })

  it('aborting while waiting for the response headers closes the connection and rejects step()', async () => {
    const arrived = deferred()
    server.respond(() => arrived.resolve())
    const controller = new AbortController()
    const pending = modelFor(server).step({ ...simpleRequest, signal: controller.signal })
    await arrived.promise
    controller.abort()
    await expect(pending).rejects.toMatchObject({ code: 'ABORTED' })
    await server.requests[0]!.closed
  })

  it('an already aborted signal sends nothing', async () => {
    const controller = new AbortController()
    controller.abort()
    await expect(
      modelFor(server).step({ ...simpleRequest, signal: controller.signal }),
    ).rejects.toMatchObject({
      code: 'ABORTED',
    })
    expect(server.requests).toHaveLength(0)
  })

  it('leaving the for-await loop early closes the connection', async () => {
    server.respond(streamThenHold(toolCallChunks(), 5))
    for await (const part of modelFor(server).stream(simpleRequest)) {
      if (part.type === 'text-delta') break
    }
    await server.requests[0]!.closed
  })

  it('the signal listener is removed after the stream ends', async () => {
    server.respond(async (res) => {
      writeSseHead(res)
      await writePiece(res, sseText(textChunks))
      res.end()
    })
    const controller = new AbortController()
    let listeners = 0
    const add = controller.signal.addEventListener.bind(controller.signal)
    const remove = controller.signal.removeEventListener.bind(controller.signal)
    controller.signal.addEventListener = ((...args: Parameters<typeof add>) => {
      listeners++
      add(...args)
    }) as typeof add
    controller.signal.removeEventListener = ((...args: Parameters<typeof remove>) => {
      listeners--
      remove(...args)
    }) as typeof remove
    await modelFor(server).step({ ...simpleRequest, signal: controller.signal })
    expect(listeners).toBe(0)
  })
})
