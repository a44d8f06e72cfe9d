export {
  type AddAppServerResult,
  APP_MCP_CONFIG_FILE,
  APP_MCP_SOURCE,
  type AppMcpImport,
  type AppMcpServerRecord,
  type AppMcpServerRecords,
  AppMcpServers,
  type AppMcpServersOptions,
  type ChangeAppServerResult,
  importAppMcpFile,
} from "./app-servers.js";
export {
  expand as expandMcpVariables,
  type HttpServerConfig,
  loadMcpConfig,
  loadMcpConfigs,
  MCP_CONFIG_ENV,
  MCP_CONFIG_FILE,
  MCP_PROJECT_CONFIG_FILE,
  type McpConfig,
  type McpConfigProblem,
  type McpConfigSource,
  type McpServerConfig,
  mcpConfigPath,
  mcpConfigSources,
  parseMcpConfig,
  type StdioServerConfig,
} from "./config.js";
export {
  DEFAULT_MCP_BACKOFF,
  DEFAULT_MCP_CALL_TIMEOUT_MS,
  type McpBackoff,
  McpConnection,
  type McpServerStatus,
  type McpTransportKind,
} from "./connection.js";
export {
  isMcpLookupError,
  McpLookupError,
  McpManager,
  type McpManagerOptions,
  type McpServerInfo,
  type McpServerStarted,
} from "./manager.js";
export {
  type McpPromptMessage,
  mcpPromptMessages,
  mcpPromptTexts,
} from "./prompt-messages.js";
export {
  type McpResourceBody,
  type McpResourceReader,
  mcpResourceBody,
  mcpResourceImage,
} from "./resource-message.js";
export { type McpResultDetails, toolResultFromMcp } from "./result.js";
export { MODEL_TOOL_NAME, modelToolNames } from "./tool-names.js";
