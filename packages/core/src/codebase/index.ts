// Codebase intelligence: the symbol index (tree-sitter), its watcher and store, the four tools.

export {
  CodebaseIndex,
  type CodebaseIndexOptions,
  type IndexStatus,
} from "./codebase-index.js";
export {
  type CodebaseToolsOptions,
  createCodebaseTools,
  withCodebaseTools,
  withIndexUpdates,
} from "./codebase-tools.js";
export type { FindDefinitionDetails } from "./definition-tool.js";
export type { Definition, FileRecord } from "./file-record.js";
export { FILE_VIEW_MAX_BYTES, type FileViewResult, readWorkspaceFile } from "./file-view.js";
export { DEFINITION_KINDS, type DefinitionKind, type LanguageId, languageOf } from "./languages.js";
export type { Manifest } from "./manifests.js";
export { checkCodebaseParts, reinstallFix } from "./native-check.js";
export type { LanguageShare, OverviewTreeNode, ProjectOverview } from "./overview.js";
export type { FindReferencesDetails, ReferenceGroup, ReferenceLine } from "./references-tool.js";
export {
  type CodebaseSearchDetails,
  DEFAULT_MAX_RESULTS,
  type SearchHit,
  searchCodebase,
} from "./search-tool.js";
export type { DefinitionHit, ReferenceFile } from "./symbol-index.js";
export { type IndexRunner, inlineRunner, WorkerRunner } from "./worker-client.js";
