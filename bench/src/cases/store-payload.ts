/** A typical `tool/result` payload, as the loop records it (about 300 bytes of JSON). */
export const resultData = {
  turn: 3,
  step: 2,
  message: {
    role: 'tool',
    content: [
      {
        type: 'tool-result',
        callId: 'call_42',
        content: [{ type: 'text', text: 'x'.repeat(160) }],
        isError: false,
      },
    ],
  },
  meta: { durationMs: 12 },
}

/** How the loop appends a result: it cites its `tool/call` (seq 1 here). */
export const resultOptions = { surfaceOp: 'append', sourceEventSeqs: [1] } as const
