// Loop identity and the recorder of loop trees (REQ-210–214, 218, 221).

export * from "./recorder.js";
export * from "./session-tree.js";
export * from "./sink.js";
