// Test support for Arbor and its users: one script format (script.ts) drives the in-process
// scripted fake provider and the fake LLM HTTP server that speaks each provider's wire format.

export * from "./app-mcp-records.js";
export * from "./bench-report.js";
export * from "./fake-llm-server/index.js";
export * from "./mcp-servers.js";
export * from "./petstore-server.js";
export * from "./script.js";
export * from "./scripted-provider.js";
