import { readWorkspaceFile } from "../../codebase/file-view.js";
import { sessionModelConfig } from "../../llm/env-config.js";
import type { ModelConfig } from "../../model/llm-config.js";
import type { SessionConfig } from "../../model/session-config.js";
import { redact } from "../../tools/secrets.js";
import type { Workspace } from "../../tools/workspace.js";
import { ExtractiveSummarizer } from "../optimization/extractive-summarizer.js";
import type { OptimizeBranchInput } from "../optimization/optimizer.js";
import { LlmSummarizer, type Summarizer } from "../optimization/summarizer.js";
import type { TokenCalibration } from "../optimization/token-calibration.js";
import type { ResolvedDeps } from "./session-deps.js";

// The session's optimization settings as every loop of the session uses them (issue #26
// finding 4): the session's run optimizing its branch (session-optimization.ts) and each child
// loop optimizing its working history (loop-context.ts) read them here, so a change of the
// session's settings reaches all of them at their next request.

/** What optimizing a loop's history needs of a session (StoredSession is one). */
export interface OptimizingSession {
  readonly id: string;
  readonly config: SessionConfig;
  readonly deps: ResolvedDeps;
  readonly workspace: Workspace | undefined;
  readonly activeBranchId: string;
  /** the estimate's scale to the provider's tokens (token-calibration.ts) */
  readonly tokens: TokenCalibration;
  nowIso(): string;
}

const extractive = new ExtractiveSummarizer();

/** The model that writes the session's summaries; undefined: extractive summaries only. */
export function summaryModel(core: OptimizingSession): ModelConfig | undefined {
  const { deps, config } = core;
  if (deps.summaries === "extractive") return undefined;
  let model: ModelConfig;
  try {
    const chosen = config.optimization.summary_model ?? config.model;
    model = chosen ? sessionModelConfig(deps.model(), chosen, deps.modelEnv()) : deps.model();
  } catch {
    // a summary model without its key: the extractive summarizer, as without a model
    return undefined;
  }
  return model.protocol === "offline" ? undefined : model;
}

/** Who writes the session's summaries now (the optimizer falls back to extractive on failure). */
export function summarizerFor(core: OptimizingSession): Summarizer {
  if (core.deps.summarizer) return core.deps.summarizer;
  const model = summaryModel(core);
  return model ? new LlmSummarizer({ provider: core.deps.provider, model }) : extractive;
}

/** The model's context window as the session's settings say (its model's, else the app's). */
export function sessionContextWindow(core: OptimizingSession): number {
  return core.config.model?.context_window ?? core.deps.model().contextWindow ?? 100_000;
}

/** What decides whether a loop's history needs optimizing, read now: the settings and window. */
export function optimizerLimits(
  core: OptimizingSession,
): Pick<OptimizeBranchInput, "config" | "contextWindow"> {
  return {
    config: core.config.optimization,
    // the optimizer counts with the estimate: the window in estimated tokens (token-calibration)
    contextWindow: core.tokens.unscale(sessionContextWindow(core)),
  };
}

/**
 * What every optimization of the session's loops uses, read now: the session's optimization
 * settings, window, summarizer and workspace files.
 */
export function optimizerSettings(
  core: OptimizingSession,
): Pick<
  OptimizeBranchInput,
  "config" | "contextWindow" | "summarizer" | "now" | "sessionId" | "readRecentFile"
> {
  return {
    ...optimizerLimits(core),
    summarizer: summarizerFor(core),
    ...(core.workspace ? { readRecentFile: recentFileReader(core, core.workspace.root) } : {}),
    now: () => core.nowIso(),
    sessionId: core.id,
  };
}

/** Reads a workspace file for the model as the file tools do: confined, secrets redacted. */
function recentFileReader(core: OptimizingSession, root: string) {
  return async (path: string): Promise<string | undefined> => {
    const read = await readWorkspaceFile(root, path);
    return read.ok ? redact(read.content, core.deps.secrets()) : undefined;
  };
}
