// Trust in a workspace's executable configuration (docs/security.md, "Workspace trust").
export * from "./definitions.js";
export * from "./workspace-trust.js";
