/** The name of the tool that reads a stored result past what the model was shown (`createReadToolOutputTool`). */
export const READ_TOOL_OUTPUT = 'read_tool_output'
