// Loop identity, the recorder of loop trees and their files (REQ-210–214, 216–218, 221).

export * from "./recorder.js";
export * from "./session-files.js";
export * from "./session-tree.js";
export * from "./sink.js";
