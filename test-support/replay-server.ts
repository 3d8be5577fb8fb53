import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { deferred } from './deferred.ts'

/** One request the server received. `closed` resolves when its connection closes. */
export interface ReceivedRequest {
  readonly method: string
  readonly path: string
  readonly headers: IncomingHttpHeaders
  readonly body: Record<string, unknown>
  /** The client's port: equal for two requests means one reused connection. */
  readonly remotePort: number | undefined
  readonly closed: Promise<void>
}

export type Responder = (
  res: ServerResponse,
  request: ReceivedRequest,
  req: IncomingMessage,
) => void | Promise<void>

export interface ReplayServer {
  /** `http://127.0.0.1:<port>`: pass it as `baseUrl`. */
  readonly baseUrl: string
  readonly requests: readonly ReceivedRequest[]
  /** Queues responders; each request takes the next one (a request with none gets a 599). */
  respond(...responders: Responder[]): void
  /** Resolves with the next request the server receives. */
  nextRequest(): Promise<ReceivedRequest>
  close(): Promise<void>
}

/** A real HTTP server on 127.0.0.1 and a random port, answering with queued responders. */
export async function startReplayServer(): Promise<ReplayServer> {
  const requests: ReceivedRequest[] = []
  const queue: Responder[] = []
  const waiting: ((request: ReceivedRequest) => void)[] = []
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      const closed = deferred()
      res.on('close', () => closed.resolve())
      const text = Buffer.concat(chunks).toString('utf8')
      const request: ReceivedRequest = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>),
        remotePort: req.socket.remotePort,
        closed: closed.promise,
      }
      requests.push(request)
      waiting.shift()?.(request)
      const responder = queue.shift()
      if (responder === undefined) {
        res.writeHead(599, { 'content-type': 'text/plain' }).end('no responder queued')
        return
      }
      Promise.resolve(responder(res, request, req)).catch((error: unknown) => {
        res.destroy(error instanceof Error ? error : new Error(String(error)))
      })
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    respond: (...responders) => void queue.push(...responders),
    nextRequest: () => new Promise((resolve) => waiting.push(resolve)),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
