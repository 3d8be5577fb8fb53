// Checks that every built package resolves from a consumer's node_modules the way npm users get it:
// Node's ESM resolver loads each `exports` entry, and TypeScript (moduleResolution node16, no
// custom conditions) finds its declarations. Run after `pnpm build`.
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const repo = join(dirname(fileURLToPath(import.meta.url)), '..')
const packages = [
  'packages/llm/llm',
  'packages/core/context',
  'packages/core/session',
  'packages/core/tools',
  'packages/core/agent-loop',
  'packages/core/agent-tool-presentation',
  'packages/code-runtime/code-runtime',
]
const consumer = mkdtempSync(join(tmpdir(), 'dsh-consumer-'))
try {
  const names = []
  for (const dir of packages) {
    const { name } = JSON.parse(readFileSync(join(repo, dir, 'package.json'), 'utf8'))
    names.push(name)
    const link = join(consumer, 'node_modules', name)
    mkdirSync(dirname(link), { recursive: true })
    symlinkSync(join(repo, dir), link, 'dir')
  }
  writeFileSync(
    join(consumer, 'package.json'),
    JSON.stringify({ name: 'consumer', type: 'module', private: true }),
  )
  const probe = names
    .map(
      (name, i) =>
        `import * as m${i} from '${name}'\nif (Object.keys(m${i}).length === 0) throw new Error('${name} exports nothing')`,
    )
    .join('\n')
  writeFileSync(join(consumer, 'probe.mjs'), `${probe}\nconsole.log('runtime ok')\n`)
  execFileSync(process.execPath, ['probe.mjs'], { cwd: consumer, stdio: 'inherit' })
  writeFileSync(
    join(consumer, 'probe.ts'),
    names
      .map((name, i) => `import * as m${i} from '${name}'\nexport const k${i} = Object.keys(m${i})`)
      .join('\n'),
  )
  writeFileSync(
    join(consumer, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        module: 'node16',
        moduleResolution: 'node16',
        strict: true,
        noEmit: true,
        skipLibCheck: false,
        types: [],
      },
      files: ['probe.ts'],
    }),
  )
  execFileSync(process.execPath, [join(repo, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'], {
    cwd: consumer,
    stdio: 'inherit',
  })
  console.log(`types ok: ${names.join(', ')}`)
} finally {
  rmSync(consumer, { recursive: true, force: true })
}
