// The ground floor of core: the shared data model (message bodies and types, states, branches,
// merge shapes, session config, loop and session records, LLM messages and config) and the few
// primitives every layer needs (cancellation, limits). It imports nothing else of Arbor; every
// other folder builds on it (docs/decisions/0010-core-layers.md).

export * from "./approvers.js";
export * from "./attachments.js";
export * from "./branch.js";
export * from "./cancellation.js";
export * from "./duplicate-ids.js";
export * from "./file-types.js";
export * from "./limits.js";
export * from "./llm-config.js";
export * from "./llm-messages.js";
export * from "./loop-records.js";
export * from "./merge-types.js";
export * from "./message-lifecycle.js";
export * from "./message-types.js";
export * from "./native-parts.js";
export * from "./permission-rules.js";
export * from "./person.js";
export * from "./private-files.js";
export * from "./session-config.js";
export * from "./session-records.js";
export * from "./states.js";
export * from "./usage-cost.js";
