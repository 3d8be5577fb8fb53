// Adds the suite's packed tarballs (`npm run pack:local` in a clone) to a project, for npm and pnpm
// alike. Run it in the project:
//
//   node <clone>/scripts/use-packed.mjs [--from DIR] [--vendor DIR] <package>…
//
// It copies every tarball of DIR (default: the clone's `packed/`) into the project's `vendor/dsh/`
// (so the project installs without the clone, in CI too), then edits the project's package.json:
// - `dependencies`: each package named (`@deepseek-ai/dsh-tools`, or just `tools`) →
//   `file:vendor/dsh/<tarball>`;
// - `overrides` (npm) and `pnpm.overrides` (pnpm): every package of the suite → its tarball.
// The overrides matter: the tarballs depend on each other by version range (`^0.0.0`), which pnpm
// would look up on the registry (ERR_PNPM_NO_MATCHING_VERSION), and npm too when a package is not
// named, while some `@deepseek-ai/dsh-*` names there belong to another project. With them, no
// package of the suite is ever fetched from a registry. Then run `npm install` or `pnpm install`.
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import { dirname, join, relative, resolve, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'

const SCOPE = '@deepseek-ai/'

/** `deepseek-ai-dsh-agent-loop-0.0.0.tgz` → `{ name: '@deepseek-ai/dsh-agent-loop', version: '0.0.0' }`. */
export function readTarballName(file) {
  const match = /^deepseek-ai-(dsh-[a-z0-9-]+?)-(\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?)\.tgz$/.exec(file)
  return match ? { name: `${SCOPE}${match[1]}`, version: match[2] } : undefined
}

/**
 * The new package.json of a project: `manifest` with the named packages as dependencies and every
 * packed package as an npm and a pnpm override, each `file:<vendor>/<tarball>`. Throws naming a
 * package that is not among the tarballs.
 */
export function withPackedDependencies({ manifest, tarballs, names, vendor }) {
  const specs = Object.fromEntries(tarballs.map(({ name, file }) => [name, `file:${vendor}/${file}`]))
  const unknown = names.filter((name) => specs[name] === undefined)
  if (unknown.length > 0) {
    throw new Error(
      `not among the packed packages: ${unknown.join(', ')} (packed: ${Object.keys(specs).join(', ')})`,
    )
  }
  const sorted = (record) => Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : 1)))
  const dependencies = { ...manifest.dependencies }
  for (const name of names) dependencies[name] = specs[name]
  const ours = (record = {}) =>
    Object.fromEntries(Object.entries(record).filter(([k]) => !k.startsWith(SCOPE)))
  return {
    ...manifest,
    dependencies: sorted(dependencies),
    overrides: sorted({ ...ours(manifest.overrides), ...specs }),
    pnpm: { ...manifest.pnpm, overrides: sorted({ ...ours(manifest.pnpm?.overrides), ...specs }) },
  }
}

function main(argv) {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      from: { type: 'string' },
      vendor: { type: 'string', default: 'vendor/dsh' },
      help: { type: 'boolean', short: 'h' },
    },
  })
  const usage =
    'usage: node <clone>/scripts/use-packed.mjs [--from DIR] [--vendor DIR] <package>…\n' +
    '  e.g. node ../dsh/scripts/use-packed.mjs @deepseek-ai/dsh-agent-loop @deepseek-ai/dsh-tools @deepseek-ai/dsh-context'
  if (values.help || positionals.length === 0) {
    process.stderr.write(`${usage}\n`)
    process.exit(values.help ? 0 : 2)
  }
  const clone = join(dirname(fileURLToPath(import.meta.url)), '..')
  const from = resolve(values.from ?? join(clone, 'packed'))
  const project = process.cwd()
  const manifestFile = join(project, 'package.json')
  const fail = (message) => {
    process.stderr.write(`use-packed: ${message}\n`)
    process.exit(1)
  }
  if (!existsSync(manifestFile)) fail(`no package.json in ${project} (run \`npm init -y\` there first)`)
  const tarballs = existsSync(from)
    ? readdirSync(from).flatMap((file) => {
        const parsed = readTarballName(file)
        return parsed ? [{ ...parsed, file }] : []
      })
    : []
  if (tarballs.length === 0)
    fail(`no packed packages in ${from} (run \`npm run pack:local\` in the clone first)`)
  const vendor = values.vendor.split(sep).join('/').replace(/\/+$/, '')
  const names = positionals.map((name) =>
    name.startsWith(SCOPE) ? name : `${SCOPE}${name.replace(/^(dsh-)?/, 'dsh-')}`,
  )
  let next
  try {
    next = withPackedDependencies({
      manifest: JSON.parse(readFileSync(manifestFile, 'utf8')),
      tarballs,
      names,
      vendor,
    })
  } catch (error) {
    fail(error.message)
  }
  const vendorDir = resolve(project, vendor)
  if (vendorDir !== from) {
    mkdirSync(vendorDir, { recursive: true })
    for (const file of readdirSync(vendorDir)) {
      if (readTarballName(file)) rmSync(join(vendorDir, file))
    }
    for (const { file } of tarballs) copyFileSync(join(from, file), join(vendorDir, file))
  }
  writeFileSync(manifestFile, `${JSON.stringify(next, null, 2)}\n`)
  process.stderr.write(
    `use-packed: ${tarballs.length} tarballs in ${relative(project, vendorDir) || '.'}/; package.json depends on ` +
      `${names.join(', ')} and overrides every @deepseek-ai/dsh-* package with its tarball (npm and pnpm).\n` +
      'use-packed: now run `npm install` (or `pnpm install`).\n',
  )
}

// only when run as a command (the packed-artifact check imports the functions)
// (real paths: a clone reached through a symlink, `node ../dsh/scripts/use-packed.mjs`, is still this file)
if (process.argv[1] && realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url)))
  main(process.argv.slice(2))
