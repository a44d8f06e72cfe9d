export {
  loadOpenApiConfig,
  OPENAPI_CONFIG_FILE,
  type OpenApiAuthConfig,
  type OpenApiConfig,
  type OpenApiConfigProblem,
  type OpenApiEntry,
  type OpenApiFilter,
  openApiConfigPath,
  parseOpenApiConfig,
} from "./config.js";
export {
  callOperation,
  DEFAULT_OPENAPI_MAX_RESPONSE_BYTES,
  DEFAULT_OPENAPI_TIMEOUT_MS,
  encodePathSegment,
  type HttpCallOptions,
  type OpenApiCallDetails,
  type ResolvedAuth,
  resolveAuth,
  utf8Prefix,
} from "./http-call.js";
export { toJsonSchema } from "./json-schema.js";
export {
  OpenApiManager,
  type OpenApiManagerOptions,
  type OpenApiSpecInfo,
  type OpenApiSpecLoaded,
  type OpenApiSpecStatus,
} from "./manager.js";
export {
  matchesFilter,
  type OpenApiOperation,
  type OperationParameter,
  type OperationsResult,
  operationsOf,
  toolNameFor,
} from "./operations.js";
export {
  loadOpenApiDocument,
  type OpenApiDocument,
  type OpenApiSpecSource,
  type OpenApiToolsOptions,
  type OperationToolOptions,
  openApiTools,
  operationTool,
} from "./spec-tools.js";
