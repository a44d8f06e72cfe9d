import { spawn } from "node:child_process";
import { stat } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import {
  type AgentTool,
  defineTool,
  type ToolContext,
  ToolError,
  type ToolResult,
} from "../tool.js";
import { toolEnvironment } from "../tool-env.js";
import {
  asProcessEnv,
  defaultToolProcesses,
  type ToolProcess,
  type ToolProcesses,
} from "../tool-processes.js";
import { fsError, refusedDirOf, throwIfCancelled, Workspace } from "../workspace.js";
import { DEFAULT_EXCLUDED_DIRS } from "./list-files.js";

// REQ-052, 106, 137: the search tool. ripgrep when it is installed, else `grep -rnE`.
// Both are run with --null so file names containing ':' still parse, from the workspace root so
// the paths they print are workspace-relative. Differences that remain: rg honours .gitignore
// and uses Rust regex syntax; grep uses POSIX extended regexes and ignores .gitignore.

export type SearchEngine = "rg" | "grep";

export interface SearchToolOptions {
  workspaceRoot: string;
  /** "auto" (default) uses rg when available and grep otherwise */
  engine?: "auto" | SearchEngine;
  /** executable names or paths (default "rg" and "grep") */
  rgCommand?: string;
  grepCommand?: string;
  /** matches shown at most (200) */
  maxMatches?: number;
  /** output bytes at most (50 KiB) */
  maxOutputBytes?: number;
  /** longer matching lines are cut (300) */
  maxLineChars?: number;
  /** the search is stopped after this long (30 000 ms) */
  timeoutMs?: number;
  /** directory names never searched (DEFAULT_EXCLUDED_DIRS) */
  excludeDirs?: readonly string[];
  /** the whole environment of rg/grep (default: toolEnvironment over this process's) */
  env?: Record<string, string>;
  /** starts and ends the search's process group (default: one shared, unrecorded) */
  processes?: ToolProcesses;
}

export interface SearchDetails {
  matches: number;
  truncated: boolean;
  engine: SearchEngine;
}

const searchParameters = z.object({
  pattern: z
    .string()
    .min(1)
    .describe(
      "Regular expression to search file contents for (ripgrep syntax, or POSIX extended when grep is used).",
    ),
  path: z
    .string()
    .optional()
    .describe(
      "Directory or file to search, relative to the workspace root. Defaults to the workspace root.",
    ),
  include: z
    .string()
    .optional()
    .describe("Only search files whose name matches this glob, e.g. `*.ts`."),
  case_sensitive: z
    .boolean()
    .optional()
    .describe("Match case exactly. Defaults to false (case-insensitive)."),
});

type SearchParams = z.output<typeof searchParameters>;

const availability = new Map<string, Promise<boolean>>();

/** Whether `command --version` runs; checked once per command name for the process lifetime. */
export function commandAvailable(command: string): Promise<boolean> {
  let known = availability.get(command);
  if (!known) {
    known = new Promise<boolean>((resolve) => {
      const child = spawn(command, ["--version"], {
        stdio: "ignore",
        env: asProcessEnv({ PATH: process.env.PATH ?? "/usr/bin:/bin" }),
      });
      child.on("error", () => resolve(false));
      child.on("exit", (code) => resolve(code === 0));
    });
    availability.set(command, known);
  }
  return known;
}

export function createSearchTool(
  options: SearchToolOptions,
): AgentTool<typeof searchParameters, SearchDetails> {
  const workspace = new Workspace(options.workspaceRoot);
  const limits: Limits = {
    maxMatches: options.maxMatches ?? 200,
    maxOutputBytes: options.maxOutputBytes ?? 50 * 1024,
    maxLineChars: options.maxLineChars ?? 300,
    timeoutMs: options.timeoutMs ?? 30_000,
  };
  const excluded = options.excludeDirs ?? DEFAULT_EXCLUDED_DIRS;
  const rg = options.rgCommand ?? "rg";
  const grep = options.grepCommand ?? "grep";
  const processes = options.processes ?? defaultToolProcesses;
  const env = options.env ?? toolEnvironment({ env: process.env, workspaceRoot: workspace.root });

  const pickEngine = async (): Promise<SearchEngine> => {
    switch (options.engine ?? "auto") {
      case "rg":
        if (!(await commandAvailable(rg)))
          throw ToolError.failed(`ripgrep (${rg}) is not available.`);
        return "rg";
      case "grep":
        return "grep";
      default:
        return (await commandAvailable(rg)) ? "rg" : "grep";
    }
  };

  return defineTool({
    name: "search",
    label: "Search",
    category: "read",
    description:
      "Search file contents in the workspace for a regular expression. Prints `path:line: text` for each matching line, paths relative to the workspace root. " +
      "Narrow with `path` and an `include` glob on file names; case-insensitive unless `case_sensitive` is true. " +
      `Skips ${excluded.join(", ")} and binary files. Shows at most ${limits.maxMatches} matches. No matches is a normal result.`,
    parameters: searchParameters,
    async execute(params: SearchParams, ctx: ToolContext): Promise<ToolResult<SearchDetails>> {
      const display = params.path ?? ".";
      try {
        // REQ-106: checked before anything runs
        throwIfCancelled(ctx.signal, "search");
        const target = await workspace.resolve(display);
        await stat(target.absolute).catch((err: unknown) => {
          throw fsError(err, target.relative);
        });
        const engine = await pickEngine();
        throwIfCancelled(ctx.signal, "search");
        const command = engine === "rg" ? rg : grep;
        const args = buildArgs(engine, params, target.relative, excluded);
        const realRoot = await workspace.getRealRoot();
        const run = await runSearch(
          () => processes.spawn(command, args, { cwd: realRoot, env }),
          command,
          limits,
          ctx.signal,
          // a refused directory (Arbor's data directory) inside the target: its matches are
          // dropped (rg and grep cannot leave out a path, only names)
          (file) => refusedDirOf(path.resolve(realRoot, file)) === undefined,
        );
        return formatResult(run, engine, params.pattern, target.relative, limits);
      } catch (err) {
        throw fsError(err, display);
      }
    },
  });
}

export function buildArgs(
  engine: SearchEngine,
  params: SearchParams,
  target: string,
  excluded: readonly string[],
): string[] {
  const caseSensitive = params.case_sensitive ?? false;
  switch (engine) {
    case "rg":
      return [
        "--no-heading",
        "--with-filename",
        "--line-number",
        "--color=never",
        "--null",
        "--hidden",
        caseSensitive ? "--case-sensitive" : "--ignore-case",
        ...(params.include === undefined ? [] : [`--glob=${params.include}`]),
        ...excluded.map((dir) => `--glob=!${dir}`),
        `--regexp=${params.pattern}`,
        "--",
        target,
      ];
    case "grep":
      return [
        "-r",
        "-n",
        "-E",
        "-I",
        "-H",
        "--null",
        "--color=never",
        ...(caseSensitive ? [] : ["-i"]),
        ...(params.include === undefined ? [] : [`--include=${params.include}`]),
        ...excluded.map((dir) => `--exclude-dir=${dir}`),
        "-e",
        params.pattern,
        "--",
        target,
      ];
    default:
      return engine satisfies never;
  }
}

interface Limits {
  maxMatches: number;
  maxOutputBytes: number;
  maxLineChars: number;
  timeoutMs: number;
}

type SearchEnd =
  | { type: "exited"; code: number | null }
  /** we stopped it: enough matches or output */
  | { type: "capped" }
  | { type: "timedOut" };

interface SearchRun {
  lines: string[];
  end: SearchEnd;
  stderr: string;
}

/** Runs the engine, collecting formatted match lines until it exits or a cap is reached. */
function runSearch(
  start: () => ToolProcess,
  command: string,
  limits: Limits,
  signal: AbortSignal,
  shown: (file: string) => boolean,
): Promise<SearchRun> {
  return new Promise((resolve, reject) => {
    const group = start();
    const child = group.child;
    const lines: string[] = [];
    let outputBytes = 0;
    let pending = "";
    let stderr = "";
    let settled = false;

    const finish = (end: SearchEnd | { type: "cancelled" } | { type: "failed"; error: Error }) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
      if (end.type !== "exited") group.terminate();
      if (end.type === "cancelled") reject(ToolError.cancelled("Search cancelled."));
      else if (end.type === "failed")
        reject(ToolError.failed(`Failed to run ${command}: ${end.error.message}`));
      else resolve({ lines, end, stderr: stderr.trim() });
    };
    const onAbort = () => finish({ type: "cancelled" });
    const timer = setTimeout(() => finish({ type: "timedOut" }), limits.timeoutMs);
    signal.addEventListener("abort", onAbort, { once: true });

    const take = (raw: string): void => {
      if (!shown(raw.slice(0, Math.max(0, raw.indexOf("\0"))))) return;
      const line = formatMatch(raw, limits.maxLineChars);
      if (line === undefined) return;
      if (
        lines.length >= limits.maxMatches ||
        outputBytes + line.length + 1 > limits.maxOutputBytes
      ) {
        finish({ type: "capped" });
        return;
      }
      lines.push(line);
      outputBytes += line.length + 1;
    };
    child.stdout?.setEncoding("utf8");
    child.stdout?.on("data", (chunk: string) => {
      if (settled) return;
      pending += chunk;
      let nl = pending.indexOf("\n");
      while (nl !== -1 && !settled) {
        take(pending.slice(0, nl));
        pending = pending.slice(nl + 1);
        nl = pending.indexOf("\n");
      }
    });
    child.stderr?.setEncoding("utf8");
    child.stderr?.on("data", (chunk: string) => {
      if (stderr.length < 4096) stderr += chunk;
    });
    child.on("error", (error) => finish({ type: "failed", error }));
    child.on("close", (code) => {
      if (pending !== "" && !settled) take(pending);
      finish({ type: "exited", code });
    });
    if (signal.aborted) finish({ type: "cancelled" });
  });
}

/** `path\0line:text` → `path:line: text`, with a leading ./ dropped and long lines cut. */
export function formatMatch(raw: string, maxLineChars: number): string | undefined {
  const nul = raw.indexOf("\0");
  if (nul === -1) return undefined;
  const file = raw.slice(0, nul).replace(/^\.\//, "");
  const rest = raw.slice(nul + 1);
  const colon = rest.indexOf(":");
  if (colon === -1) return undefined;
  let text = rest.slice(colon + 1).replace(/\r$/, "");
  if (text.length > maxLineChars) text = `${text.slice(0, maxLineChars)}… (line truncated)`;
  return `${file}:${rest.slice(0, colon)}: ${text}`;
}

function formatResult(
  run: SearchRun,
  engine: SearchEngine,
  pattern: string,
  target: string,
  limits: Limits,
): ToolResult<SearchDetails> {
  const { lines, end } = run;
  // exit 1 is "no matches" for both engines; 2 is an error (bad regex, unreadable files)
  if (end.type === "exited" && end.code !== 0 && end.code !== 1 && lines.length === 0) {
    throw ToolError.failed(
      `Search failed (${engine} exit code ${end.code}): ${run.stderr || "no error message"}`,
    );
  }
  if (end.type === "timedOut" && lines.length === 0) {
    throw ToolError.failed(
      `Search timed out after ${limits.timeoutMs / 1000}s with no matches yet. Narrow it with path or include.`,
    );
  }
  const truncated = end.type !== "exited";
  const out = lines.length > 0 ? [...lines] : [`No matches for /${pattern}/ in ${target}`];
  if (end.type === "capped") {
    out.push(
      `... (results truncated at ${lines.length} matches; narrow the pattern, path or include)`,
    );
  } else if (end.type === "timedOut") {
    out.push(`... (search stopped after ${limits.timeoutMs / 1000}s; results are incomplete)`);
  } else if (end.code !== 0 && end.code !== 1) {
    out.push(`(some files could not be searched: ${run.stderr.split("\n")[0] ?? ""})`);
  }
  return {
    content: [{ type: "text", text: out.join("\n") }],
    details: { matches: lines.length, truncated, engine },
  };
}
