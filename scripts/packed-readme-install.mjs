// The root README's install commands, run as written in scratch projects with npm and with pnpm
// (part of the packed-artifact check, scripts/check-packed.mjs): `use-packed` adds the tarballs,
// the package manager installs them with zod, and the README's taste (its first runnable block)
// must print what its comments say. Every `@deepseek-ai/dsh-*` package must come from a tarball:
// some of those names on the npm registry belong to another project.
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { inspect } from 'node:util'

/** The install commands of the README's `## Install` block: the packages named and the two zod lines. */
export function readmeInstall(readme) {
  const section = /^## Install\n([\s\S]*?)^## /m.exec(readme)?.[1] ?? ''
  const block = /^```sh\n([\s\S]*?)^```$/m.exec(section)?.[1] ?? ''
  const lines = block.split('\n').map((line) => line.replace(/\s+#.*$/, '').trim())
  const usePacked = lines.find((line) => /^node \S*scripts\/use-packed\.mjs /.test(line))
  const zod = lines.find((line) => /^npm install zod\S*$/.test(line))
  // pnpm's alternative is in the line's comment
  const pnpmZod = /pnpm add zod\S*/.exec(block)
  if (!usePacked || !zod || !pnpmZod) {
    throw new Error(
      'README.md: the ```sh block of "## Install" must run `node …/scripts/use-packed.mjs <packages>` and name `npm install zod` and `pnpm add zod`',
    )
  }
  return {
    names: usePacked.split(/\s+/).slice(2),
    npm: zod.split(/\s+/).slice(2),
    pnpm: pnpmZod[0].split(/\s+/).slice(2),
  }
}

/**
 * Writes the README's taste into `dir` as `taste.mjs`, with `print.mjs` that runs it and prints each
 * `console.log` as the README test's spy renders it (strings as they are, values by `inspect`).
 * Run `node print.mjs` there and compare its lines with `readmeTaste(readme).expected`.
 */
export function writeTaste(dir, taste) {
  writeFileSync(join(dir, 'taste.mjs'), taste.source)
  writeFileSync(
    join(dir, 'print.mjs'),
    `import { inspect } from 'node:util'
console.log = (...args) => process.stdout.write(args.map((a) => (typeof a === 'string' ? a : inspect(a, { depth: 5, breakLength: Infinity }))).join(' ') + '\\n')
await import('./taste.mjs')
`,
  )
}

/** The README's first runnable block (the taste) and the lines its `// …` comments announce. */
export function readmeTaste(readme) {
  const source = /^```ts\n([\s\S]*?)^```$/m.exec(readme)?.[1] ?? ''
  const expected = [...source.matchAll(/^console\.log\(.*\) \/\/ (.*)$/gm)].map((m) => m[1])
  return { source, expected }
}

/**
 * The `@deepseek-ai/dsh-*` packages a lockfile (npm's package-lock.json or pnpm-lock.yaml, as text)
 * resolved from anywhere but the project's `vendor/dsh/` tarballs.
 */
export function notFromTarballs(manager, lock) {
  if (manager === 'npm') {
    return Object.entries(JSON.parse(lock).packages ?? {})
      .filter(([path]) => path.includes('node_modules/@deepseek-ai/'))
      .filter(([, entry]) => !String(entry.resolved ?? '').startsWith('file:vendor/dsh/'))
      .map(([path, entry]) => `${path} (${entry.resolved})`)
  }
  // the keys of `packages:` and `snapshots:`, e.g. '@deepseek-ai/dsh-tools@file:vendor/dsh/….tgz'
  return [...lock.matchAll(/^ {2}'?(@deepseek-ai\/dsh-[a-z0-9-]+)@(.+?)'?:\s*$/gm)]
    .filter(([, , version]) => !version.startsWith('file:vendor/dsh/'))
    .map(([, name, version]) => `${name}@${version}`)
}

/**
 * Runs the README's install in `${work}/readme-${manager}` for npm and pnpm with the tarballs of
 * `tarballDir`; reports through `check`. `run(command, args, cwd, options)` runs a command.
 */
export function checkReadmeInstall({ repo, work, tarballDir, run, check, log }) {
  const readme = readFileSync(join(repo, 'README.md'), 'utf8')
  const install = readmeInstall(readme)
  const taste = readmeTaste(readme)
  check(taste.expected.length >= 3, 'README.md: the taste announces fewer than three printed lines')
  for (const manager of ['npm', 'pnpm']) {
    const app = join(work, `readme-${manager}`)
    mkdirSync(app, { recursive: true })
    writeFileSync(
      join(app, 'package.json'),
      `${JSON.stringify({ name: 'my-app', private: true, type: 'module' })}\n`,
    )
    run(process.execPath, [join(repo, 'scripts/use-packed.mjs'), '--from', tarballDir, ...install.names], app)
    const args =
      manager === 'npm'
        ? ['install', ...install.npm, '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error']
        : ['add', ...install.pnpm, '--prefer-offline', '--config.confirmModulesPurge=false']
    try {
      run(manager, args, app)
    } catch (error) {
      check(
        false,
        `README install with ${manager} failed:\n${error.stdout ?? ''}${error.stderr ?? error.message}`,
      )
      continue
    }
    const lock = readFileSync(join(app, manager === 'npm' ? 'package-lock.json' : 'pnpm-lock.yaml'), 'utf8')
    const fromRegistry = notFromTarballs(manager, lock)
    check(
      fromRegistry.length === 0,
      `README install with ${manager}: not from the tarballs: ${fromRegistry.join(', ')}`,
    )
    const vendored = readdirSync(join(app, 'vendor/dsh')).filter((f) => f.endsWith('.tgz')).length
    check(
      vendored === readdirSync(tarballDir).filter((f) => f.endsWith('.tgz')).length,
      `README install with ${manager}: vendor/dsh/ does not hold every tarball`,
    )
    writeTaste(app, taste)
    const printed = run(process.execPath, ['print.mjs'], app).trimEnd().split('\n')
    check(
      inspect(printed) === inspect(taste.expected),
      `README taste after the ${manager} install printed\n  ${printed.join('\n  ')}\nexpected\n  ${taste.expected.join('\n  ')}`,
    )
    log?.(
      `README install with ${manager}: ${install.names.join(', ')} + zod from ${vendored} vendored tarballs`,
    )
  }
}
