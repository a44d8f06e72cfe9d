export * from "./fold-session.js";
export * from "./ledger.js";
export * from "./memory.js";
export * from "./params.js";
export * from "./scrub.js";
