// @arbor/core public API. Each folder's index.ts re-exports its own public parts.
export * from "./agent/index.js";
export * from "./codebase/index.js";
export * from "./context/index.js";
export * from "./fold-runtime/index.js";
export * from "./folding/index.js";
export * from "./llm/index.js";
export * from "./mcp/index.js";
export * from "./model/index.js";
export * from "./openapi/index.js";
export * from "./protocol/index.js";
export * from "./recording/index.js";
export * from "./runtime-info.js";
export * from "./skills/index.js";
export * from "./store/index.js";
export * from "./subagents/index.js";
export * from "./tools/index.js";
export * from "./trust/index.js";
