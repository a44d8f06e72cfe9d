export * from "./ledger.js";
