// zod schemas of everything on the wire: one source of truth for server, browser and docs.

export * from "./account.js";
export * from "./audit.js";
export * from "./budgets.js";
export * from "./docs.js";
export * from "./event-schemas.js";
export * from "./events.js";
export * from "./extensions.js";
export * from "./http-responses.js";
export * from "./loop-tree.js";
export * from "./mcp.js";
export * from "./message-type-name.js";
export * from "./openapi.js";
export * from "./parallel.js";
export * from "./people.js";
export * from "./prices.js";
export * from "./provider-keys.js";
export * from "./requests.js";
export * from "./responses.js";
export * from "./settings.js";
export * from "./sharing.js";
export * from "./strict.js";
export * from "./trust.js";
export * from "./validation.js";
