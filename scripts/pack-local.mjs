// `npm run pack:local [-- --out DIR]`: installs and builds the clone when needed (the same stamp as
// `npm start`), then packs the suite's 14 packages into DIR (default `packed/` in the clone), as
// npm users would get them from a registry. scripts/use-packed.mjs adds them to a project.
//
// The suite is not on the npm registry under its own names yet, and some `@deepseek-ai/dsh-*`
// names there belong to another project: install these tarballs instead, never those.
import { mkdirSync, readFileSync, readdirSync, rmSync } from 'node:fs'
import { basename, join, relative, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { ensureBuilt, repo } from './ensure-built.mjs'
import { packSuite } from './pack-suite.mjs'

const { values } = parseArgs({ options: { out: { type: 'string' } } })
const destination = resolve(values.out ?? join(repo, 'packed'))
const packageManager = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')).packageManager.split(
  '+',
)[0]
const say = (line) => process.stderr.write(`pack:local: ${line}\n`)

try {
  await ensureBuilt({ who: 'pack:local' })
} catch (error) {
  process.stderr.write(`${error.output ?? ''}\npack:local: ${error.message}; its full log is above.\n`)
  process.exit(1)
}
mkdirSync(destination, { recursive: true })
// tarballs of an earlier version would be offered next to the new ones
for (const file of readdirSync(destination)) {
  if (/^deepseek-ai-dsh-.*\.tgz$/.test(file)) rmSync(join(destination, file))
}
say(`packing ${relative(process.cwd(), destination) || '.'}/ …`)
const packs = await packSuite({
  repo,
  destination,
  pnpm: [process.platform === 'win32' ? 'npx.cmd' : 'npx', '-y', packageManager],
}).catch((error) => {
  process.stderr.write(
    `${error.stdout ?? ''}${error.stderr ?? ''}\npack:local: packing failed: ${error.message}\n`,
  )
  process.exit(1)
})
for (const { name, tarball } of packs) say(`  ${name}: ${basename(tarball)}`)
say(`${packs.length} tarballs in ${destination}`)
say('add them to a project (run there; npm or pnpm):')
say(
  `  node ${relative(process.cwd(), join(repo, 'scripts/use-packed.mjs')) || 'scripts/use-packed.mjs'} @deepseek-ai/dsh-agent-loop @deepseek-ai/dsh-tools @deepseek-ai/dsh-context`,
)
