// The six built-in tools (REQ-047–053) and what configures them.

export {
  type BashDetails,
  type BashToolOptions,
  createBashTool,
  DEFAULT_BASH_MAX_OUTPUT_BYTES,
} from "./bash.js";
export { createDefaultTools, type DefaultToolsOptions } from "./default-tools.js";
export {
  type AnalysedCommand,
  analyseCommand,
  DEFAULT_DENY_PATTERNS,
  type DenyPattern,
  type DenyRule,
  matchDenyPattern,
} from "./deny-patterns.js";
export { createEditFileTool, type EditFileDetails, type EditFileToolOptions } from "./edit-file.js";
export { globToRegExp } from "./glob.js";
export {
  createListFilesTool,
  DEFAULT_EXCLUDED_DIRS,
  type ListFilesDetails,
  type ListFilesToolOptions,
} from "./list-files.js";
export {
  createReadFileTool,
  DEFAULT_MAX_IMAGE_BYTES,
  DEFAULT_MAX_TEXT_BYTES,
  IMAGE_MIME_TYPES,
  type ReadFileDetails,
  type ReadFileToolOptions,
} from "./read-file.js";
export {
  createSearchTool,
  type SearchDetails,
  type SearchEngine,
  type SearchToolOptions,
} from "./search.js";
export { type FindSimilarOptions, findSimilarText, type SimilarText } from "./similar-text.js";
export {
  DEFAULT_FILE_LIST_LIMIT,
  type ListWorkspaceFilesOptions,
  listWorkspaceFiles,
  type TreeEntry,
  type TreeVisitor,
  walkTree,
} from "./workspace-files.js";
export {
  createWriteFileTool,
  type WriteFileDetails,
  type WriteFileToolOptions,
} from "./write-file.js";
