import { type SecretSource, withRedactedOutput } from "../redacting-tool.js";
import type { Sandbox, SandboxExposure } from "../sandbox.js";
import { secretsFromEnv } from "../secrets.js";
import type { AnyAgentTool } from "../tool.js";
import { toolEnvironment } from "../tool-env.js";
import type { ToolProcesses } from "../tool-processes.js";
import { type BashToolOptions, createBashTool } from "./bash.js";
import { createEditFileTool, type EditFileToolOptions } from "./edit-file.js";
import { createListFilesTool, type ListFilesToolOptions } from "./list-files.js";
import { createReadFileTool, type ReadFileToolOptions } from "./read-file.js";
import { createSearchTool, type SearchToolOptions } from "./search.js";
import { createWriteFileTool, type WriteFileToolOptions } from "./write-file.js";

type Without<T> = Omit<T, "workspaceRoot">;

/** Settings for the six built-in tools; every tool is confined to `workspaceRoot`. */
export interface DefaultToolsOptions {
  workspaceRoot: string;
  /**
   * The server's environment: tool processes get toolEnvironment of it (an allow-list plus
   * ARBOR_TOOL_ENV), and its secret values are redacted from tool output. Default: process.env.
   */
  env?: Readonly<Record<string, string | undefined>>;
  /**
   * Secret values redacted from every tool result, streamed update, progress line and error
   * before they leave the tool (default: secretsFromEnv of `env`). A function is asked per call.
   */
  secrets?: SecretSource;
  /** where bash runs commands (default: no sandbox) */
  sandbox?: Sandbox;
  /** what sandboxGate weighs for bash's commands (default: a person approves, loopback only) */
  exposure?: SandboxExposure;
  /** starts, records and ends tool process groups (default: one shared, unrecorded) */
  processes?: ToolProcesses;
  bash?: Without<BashToolOptions>;
  readFile?: Without<ReadFileToolOptions>;
  writeFile?: Without<WriteFileToolOptions>;
  editFile?: Without<EditFileToolOptions>;
  listFiles?: Without<ListFilesToolOptions>;
  search?: Without<SearchToolOptions>;
}

/**
 * REQ-053: the six built-in tools, with distinct names: bash, read_file, write_file, edit_file,
 * list_files, search. Their output is redacted of secrets (see redacting-tool.ts).
 */
export function createDefaultTools(options: DefaultToolsOptions): AnyAgentTool[] {
  const { workspaceRoot } = options;
  const env = options.env ?? process.env;
  const processEnv = toolEnvironment({ env, workspaceRoot });
  const shared = {
    env: processEnv,
    ...(options.processes !== undefined ? { processes: options.processes } : {}),
  };
  const tools = [
    createBashTool({
      ...shared,
      ...(options.sandbox !== undefined ? { sandbox: options.sandbox } : {}),
      ...(options.exposure !== undefined ? { exposure: options.exposure } : {}),
      ...options.bash,
      workspaceRoot,
    }),
    createReadFileTool({ ...options.readFile, workspaceRoot }),
    createWriteFileTool({ ...options.writeFile, workspaceRoot }),
    createEditFileTool({ ...options.editFile, workspaceRoot }),
    createListFilesTool({ ...options.listFiles, workspaceRoot }),
    createSearchTool({ ...shared, ...options.search, workspaceRoot }),
  ];
  const secrets = options.secrets ?? secretsFromEnv(env);
  return tools.map((tool) => withRedactedOutput(tool, secrets));
}
