// The `@deepseek-ai/dsh-tools/json-schema` entry: tools defined by a raw JSON Schema, validated by
// Ajv. It is a separate entry so that Ajv (an optional peer dependency) is installed and loaded only
// by those who use it; everything else comes from the main entry.
export { defineJsonSchemaTool } from './definition/define-json-schema-tool.ts'
export type { DefineJsonSchemaToolSpec } from './definition/define-json-schema-tool.ts'
export { compileJsonSchema } from './definition/json-schema-validator.ts'
