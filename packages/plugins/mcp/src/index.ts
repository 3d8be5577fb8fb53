export { mcpTools } from './mcp-tools.ts'
export type { McpServerStatus, McpTools } from './mcp-tools.ts'
export { mcpConfigSchema, readConfig as readMcpConfig, DEFAULT_TIMEOUT_MS } from './read-config.ts'
export type { McpConfig, McpServerConfig } from './read-config.ts'
export { McpErrorNames, MCP_ERROR_CODES } from './codes.ts'
export type { McpErrorName } from './codes.ts'
export { McpPluginError } from './errors.ts'
export type { McpPluginErrorCode } from './errors.ts'
export type { McpServerState, SkippedTool } from './server-runtime.ts'
export { toolName as mcpToolName, TOOL_NAME_RULE } from './tool-name.ts'
export type {
  McpAskingCall,
  McpElicitationAnswer,
  McpElicitationHandler,
  McpElicitationRequest,
  McpRoot,
  McpRootsInput,
  McpSamplingDecision,
  McpSamplingLimits,
  McpSamplingRequest,
} from './client-config.ts'
export { DEFAULT_SAMPLING_MAX_TOKENS } from './client-config.ts'
export { SAMPLING_DENIED } from './sample.ts'
