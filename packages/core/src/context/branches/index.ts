// Branches and merge: pure functions over the message pool and branch records.
export * from "./branch-ops.js";
export * from "./errors.js";
export * from "./merge.js";
export * from "./rebase-conflicts.js";
export * from "./types.js";
export * from "./validate.js";
