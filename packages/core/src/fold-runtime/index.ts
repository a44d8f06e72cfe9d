export * from "./fold-runtime.js";
