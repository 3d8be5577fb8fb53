import { definePackageBuild } from '../../../tsup.shared.ts'

// Two entries: the main one, and `json-schema` (Ajv, an optional peer). Code both use (the error
// class) goes into a shared chunk, so `instanceof ToolsError` holds across them in both formats.
export default definePackageBuild({
  entry: { index: 'src/index.ts', 'json-schema': 'src/json-schema.ts' },
  splitting: true,
})
