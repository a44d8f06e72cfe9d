// The Context Manager: state machine, message types, pipeline, approvals, plan/act, prompts,
// optimization, branches and merge, and the Session that owns a conversation's lifecycle.
export * from "./branches/index.js";
export * from "./file-reference-processor.js";
export * from "./legacy.js";
export * from "./message-pool.js";
export * from "./optimization/index.js";
export * from "./pipeline.js";
export * from "./pipeline-processors.js";
export * from "./plan-act.js";
export * from "./processor-registry.js";
export * from "./session/index.js";
export * from "./state-machine.js";
export * from "./system-prompt.js";
export * from "./workspace-instructions.js";
