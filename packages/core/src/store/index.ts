// Storage interfaces of the Context Manager and the in-memory implementation.

// store-contract.ts and contract-fixtures.ts are for tests only (the contract imports vitest).
export * from "./coordination.js";
export * from "./loop-numbers.js";
export * from "./memory-store.js";
export * from "./poll.js";
export * from "./types.js";
