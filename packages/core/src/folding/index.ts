export * from "./fold-session.js";
export * from "./ledger.js";
export * from "./mcp-http.js";
export * from "./mcp-server.js";
export * from "./mcp-stdio.js";
export * from "./memory.js";
export * from "./params.js";
export * from "./scrub.js";
