export * from "./ledger.js";
export * from "./memory.js";
export * from "./scrub.js";
