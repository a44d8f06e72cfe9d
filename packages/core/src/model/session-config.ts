import { z } from "zod";
import { ApproversSchema } from "./approvers.js";
import { ApiProtocolSchema, ThinkingLevelSchema } from "./llm-config.js";
import { parsePermissionRule } from "./permission-rules.js";

// A session's configuration (the spec's ChatConfig). Every field has a default so that a stored
// config written before a field existed still loads (plan-act: a config without agent_mode is Act).

export const AgentModeSchema = z.enum(["plan", "act"]);
export type AgentMode = z.infer<typeof AgentModeSchema>;

/** Planner sees read-only tools; Actor sees all (context-manager "Role-based tool filtering"). */
export const AgentRoleSchema = z.enum(["planner", "actor"]);
export type AgentRole = z.infer<typeof AgentRoleSchema>;

export const ApprovalPolicySchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("auto_approve_all") }),
  z.object({ type: z.literal("manual") }),
  z.object({ type: z.literal("white_list"), tools: z.array(z.string()) }),
  z.object({ type: z.literal("limited_auto"), max_depth: z.number().int().min(1) }),
]);
export type ApprovalPolicy = z.infer<typeof ApprovalPolicySchema>;

export const OptimizationStrategySchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("recent_n"), n: z.number().int().min(1).default(20) }),
  z.object({
    type: z.literal("intelligent"),
    keep_recent: z.number().int().min(1).default(10),
    /** file references touched within this many recent messages are kept */
    file_reference_window: z.number().int().min(0).default(30),
    summarize: z.boolean().default(true),
  }),
  z.object({
    type: z.literal("importance_scoring"),
    keep_recent: z.number().int().min(1).default(6),
    /** messages scoring at or above this are kept whole */
    min_score: z.number().min(0).max(1).default(0.5),
    summarize: z.boolean().default(true),
  }),
]);
export type OptimizationStrategy = z.infer<typeof OptimizationStrategySchema>;

/** The model that writes optimization's summaries when it is not the session's own (issue #15). */
export const SummaryModelSchema = z.object({
  protocol: ApiProtocolSchema,
  model: z.string().min(1),
});
export type SummaryModel = z.infer<typeof SummaryModelSchema>;

export const OptimizationConfigSchema = z.object({
  strategy: OptimizationStrategySchema.default({
    type: "intelligent",
    keep_recent: 10,
    file_reference_window: 30,
    summarize: true,
  }),
  /** optimize when the request would use more than this share of the context window */
  trigger_ratio: z.number().gt(0).max(1).default(0.8),
  /** and shrink it to at most this share, well below the trigger */
  target_ratio: z.number().gt(0).max(1).default(0.5),
  /**
   * who writes the summaries: absent → the session's model; a cheaper model here; the offline
   * protocol → the extractive summarizer (no model call). Without a usable model (offline, no
   * key) summaries are extractive, and a failed or timed-out model summary falls back to it.
   */
  summary_model: SummaryModelSchema.optional(),
  /**
   * how requests are counted: absent or "provider" → Arbor's estimate scaled to the provider's
   * own figures (Anthropic's count_tokens near the trigger, other providers' reported usage;
   * docs/context-optimization.md); "estimate" → the estimate alone, the same for every provider
   * (reproducible figures: benchmarks, tests tuned to it)
   */
  token_counting: z.enum(["provider", "estimate"]).optional(),
});
export type OptimizationConfig = z.infer<typeof OptimizationConfigSchema>;

export const SessionModelSchema = z.object({
  protocol: ApiProtocolSchema,
  model: z.string().min(1),
  thinking_level: ThinkingLevelSchema.default("off"),
  max_tokens: z.number().int().positive().optional(),
  context_window: z.number().int().positive().default(100_000),
});
export type SessionModel = z.infer<typeof SessionModelSchema>;

/** Context folding (issue #13): `branch`/`return` folds and their limits, with the spec's defaults. */
export const FoldingSettingsSchema = z.object({
  /** offer `branch` (and, inside a fold, `return`) to the session's model */
  enabled: z.boolean().default(false),
  /** a fold's budget (tokens) when `branch` names none */
  default_budget: z.number().int().positive().default(8192),
  /** the largest budget a `branch` may ask for */
  max_budget: z.number().int().positive().default(32768),
  /** how deep folds may nest; a `branch` beyond it is refused naming the depth */
  max_depth: z.number().int().positive().default(3),
  default_timeout_seconds: z.number().positive().default(300),
  max_timeout_seconds: z.number().positive().default(600),
  /** folds open at once in one session */
  max_concurrent: z.number().int().positive().default(10),
  /** keep every return's message as a memory, as `return {remember: true}` does */
  remember_by_default: z.boolean().default(false),
});
export type FoldingSettings = z.infer<typeof FoldingSettingsSchema>;

/**
 * How the tool calls of one model answer run (issue #26): one after another; read-only calls
 * (reads, searches, codebase tools, MCP tools annotated readOnlyHint) together and every other
 * call alone (Claude Code's rule, the default); or every call of the answer at once. Results go
 * back to the model in call order whatever the mode, and each call keeps its own approval.
 */
export const ToolExecutionModeSchema = z.enum(["sequential", "parallel_read_only", "parallel"]);
export type ToolExecutionMode = z.infer<typeof ToolExecutionModeSchema>;

/** A scoped "Always allow" rule: `Bash(npm test)` or `Bash(npm test:*)` (permission-rules.ts). */
export const AllowRuleSchema = z.string().superRefine((text, ctx) => {
  const parsed = parsePermissionRule(text);
  if (!parsed.ok) ctx.addIssue({ code: "custom", message: parsed.error });
});

export const SessionConfigSchema = z.object({
  agent_mode: AgentModeSchema.default("act"),
  /**
   * whose tools the model gets in Act mode: planner (the read-only ones) or actor (every tool);
   * absent → the app's default role (actor unless the host says otherwise)
   */
  agent_role: AgentRoleSchema.optional(),
  approval_policy: ApprovalPolicySchema.default({ type: "manual" }),
  /** who may approve or deny tool calls (approvers.ts mayApprove); viewers never */
  approvers: ApproversSchema.default("collaborators"),
  /**
   * read-only tools (the same classification as tool_execution: reads, searches, codebase tools,
   * MCP tools annotated readOnlyHint) run without asking, in Act and Plan mode; each such call
   * is recorded as auto_approved by the rule `approve_read_only`. false → they ask like the rest.
   */
  approve_read_only: z.boolean().default(true),
  /**
   * scoped "Always allow" rules for bash, as Claude Code writes them: `Bash(npm test)` (this exact
   * command) or `Bash(npm test:*)` (commands starting with these words; never a compound command)
   */
  allow_rules: z.array(AllowRuleSchema).max(200).default([]),
  optimization: OptimizationConfigSchema.default(OptimizationConfigSchema.parse({})),
  /** the workspace the file tools and file references are confined to */
  workspace: z.string().optional(),
  /** the base system prompt; a branch may override it */
  system_prompt: z.string().optional(),
  /** the model; absent → the app's configured default */
  model: SessionModelSchema.optional(),
  /** a single auto-loop iteration (one model call plus its tools) is cut off after this */
  auto_loop_iteration_timeout_ms: z.number().int().positive().default(30_000),
  /** context folding: the `branch` and `return` tools' limits (docs/folding.md) */
  folding: FoldingSettingsSchema.default(FoldingSettingsSchema.parse({})),
  /** how one answer's tool calls run: sequential, parallel_read_only (default) or parallel */
  tool_execution: ToolExecutionModeSchema.default("parallel_read_only"),
});
export type SessionConfig = z.infer<typeof SessionConfigSchema>;
export type SessionConfigInput = z.input<typeof SessionConfigSchema>;

export function sessionConfig(input: SessionConfigInput = {}): SessionConfig {
  return SessionConfigSchema.parse(input);
}
