// @arbor/core/storage: what a storage package (packages/db) takes from core at run time — the
// data model's zod schemas, the store's error and its sequence and lifecycle rules, the stored
// message reader, private file modes and the native-part diagnosis. The app loads packages/db
// with Node at run time (outside its bundle, apps/web/lib/server/store.ts), so every module
// this entry reaches is loaded a second time beside the app's bundled core: the full server
// entry made each app start pay for core twice (about 2 CPU seconds). Its runtime imports reach
// only model/, protocol/, store/ and the stored-message reader, and no package but zod
// (test/storage-entry.test.ts). Types come from `@arbor/core`, where an `import type` costs
// nothing at run time. (docs/decisions/0082-storage-entry-and-migration-check.md)

export { fromStoredMessages } from "./context/legacy.js";
export { BranchSchema } from "./model/branch.js";
export { emptyUsage, UsageSchema } from "./model/llm-messages.js";
export { LoopRecordSchema } from "./model/loop-records.js";
export { PendingMergeSchema } from "./model/merge-types.js";
export { applyLifecycleUpdate, describeLifecycleUpdateError } from "./model/message-lifecycle.js";
export {
  isAbiMismatch,
  NativePartError,
  nativeLoadCause,
  rebuildCommand,
} from "./model/native-parts.js";
export { personRef } from "./model/person.js";
export { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE, tightenPrivateFile } from "./model/private-files.js";
export { SessionConfigSchema } from "./model/session-config.js";
export { ContextStateSchema } from "./model/states.js";
export {
  checkExpectedSequence,
  decodeSessionControl,
  encodeSessionControl,
} from "./store/coordination.js";
export { nextLoopNumberOf } from "./store/loop-numbers.js";
export { withSequence } from "./store/memory-store.js";
export { StoreError } from "./store/types.js";
