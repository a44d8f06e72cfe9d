// Storage interfaces of the Context Manager and the in-memory implementation.

// contract-fixtures.ts is for tests only (entry @arbor/core/store-contract-fixtures); the contract
// suite itself imports vitest and lives in test/support/store-contract.ts.
export * from "./coordination.js";
export * from "./loop-numbers.js";
export * from "./memory-store.js";
export * from "./poll.js";
export * from "./types.js";
