import { definePackageBuild } from '../../../tsup.shared.ts'

// The library and the `dsh-timeline` command (`dist/cli.js`, which `bin` names; tsup keeps its
// shebang). Built like every package: ESM and CommonJS of each entry.
export default definePackageBuild({ entry: { index: 'src/index.ts', cli: 'src/cli.ts' } })
