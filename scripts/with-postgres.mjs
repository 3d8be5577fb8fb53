// Runs a command with a throwaway PostgreSQL server (scripts/postgres-server.mjs):
//
//   node scripts/with-postgres.mjs -- <command> [args…]
//
// starts the server, runs the command with DSH_TEST_POSTGRES_URL set to it, stops the server and
// exits with the command's status. .ci/run runs `npm run ci` this way.
import { spawn } from 'node:child_process'
import { URL_VARIABLE, startPostgres } from './postgres-server.mjs'

async function main(argv) {
  const separator = argv.indexOf('--')
  const command = separator === -1 ? argv : argv.slice(separator + 1)
  if (command.length === 0) {
    console.error('usage: node scripts/with-postgres.mjs -- <command> [args…]')
    process.exit(2)
  }
  const server = await startPostgres({ log: (line) => console.error(`[postgres] ${line}`) })
  const child = spawn(command[0], command.slice(1), {
    stdio: 'inherit',
    env: { ...process.env, [URL_VARIABLE]: server.url },
  })
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal))
  const status = await new Promise((resolve) => {
    child.once('error', (error) => {
      console.error(`[postgres] could not run ${command[0]}: ${error.message}`)
      resolve(127)
    })
    child.once('exit', (code, signal) => resolve(code ?? (signal ? 128 : 1)))
  })
  await server.stop()
  console.error('[postgres] stopped')
  process.exit(status)
}

main(process.argv.slice(2)).catch((error) => {
  console.error(`[postgres] ${error instanceof Error ? error.message : String(error)}`)
  process.exit(1)
})
