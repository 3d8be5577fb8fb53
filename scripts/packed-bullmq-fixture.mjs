// The scratch project scripts/check-packed.mjs builds for @deepseek-ai/dsh-dispatch-bullmq: the
// packed plugin and the packed packages it needs, installed with npm beside zod (bullmq and ioredis
// come from the registry as its dependencies). One smoke body, run as ESM and as CommonJS: the
// exports are there and bad options are refused by name before anything connects.

const body = `
const refused = (fn) => {
  try {
    fn()
    return 'accepted'
  } catch (error) {
    return DispatchError.isInstance(error) ? error.code : 'other: ' + error.message
  }
}
console.log(
  JSON.stringify({
    exports: [typeof createRemoteDispatch, typeof createToolWorker, REMOTE_DISPATCH_PRIORITY, RemoteFailureNames.WorkerLost],
    jobId: jobIdFor('a:b', 'session'),
    badDispatch: refused(() => createRemoteDispatch({ connection: 'http://x', remote: ['a'] })),
    badWorker: refused(() => createToolWorker({ connection: 'redis://127.0.0.1:1', tools: [] })),
  }),
)
`

const names =
  'createRemoteDispatch, createToolWorker, DispatchError, jobIdFor, REMOTE_DISPATCH_PRIORITY, RemoteFailureNames'

export const bullmqFixture = {
  packages: [
    '@deepseek-ai/dsh-dispatch-bullmq',
    '@deepseek-ai/dsh-tools',
    '@deepseek-ai/dsh-context',
    '@deepseek-ai/dsh-llm',
    '@deepseek-ai/dsh-session',
  ],
  files: {
    'smoke.mjs': `import { ${names} } from '@deepseek-ai/dsh-dispatch-bullmq'\n${body}`,
    'smoke.cjs': `const { ${names} } = require('@deepseek-ai/dsh-dispatch-bullmq')\n${body}`,
  },
  expectedReport: {
    exports: ['function', 'function', -2000, 'WorkerLost'],
    jobId: 'call-session.a%3Ab',
    badDispatch: 'INVALID_ARGUMENT',
    badWorker: 'INVALID_ARGUMENT',
  },
}
