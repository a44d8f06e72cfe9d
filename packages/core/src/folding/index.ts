export * from "./ledger.js";
export * from "./scrub.js";
