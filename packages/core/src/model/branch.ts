import { z } from "zod";

// Branches share the session's immutable message pool: a branch is an ordered list of message ids.

export const PipelineConfigSchema = z.object({
  /** processor names in order; unknown names are rejected when the branch is saved */
  processors: z.array(z.string()).min(1),
});
export type PipelineConfig = z.infer<typeof PipelineConfigSchema>;

export const MergeStrategyNameSchema = z.enum(["append", "cherry_pick", "rebase"]);
export type MergeStrategyName = z.infer<typeof MergeStrategyNameSchema>;

export const BranchSchema = z.object({
  id: z.string().min(1),
  session_id: z.string().min(1),
  name: z.string().min(1),
  /** null for the session's first branch */
  parent_branch_id: z.string().nullable().default(null),
  /** the message this branch was forked after (its last shared message); null for the first */
  fork_message_id: z.string().nullable().default(null),
  message_ids: z.array(z.string()),
  /** overrides the session's base system prompt for this branch only */
  system_prompt: z.string().optional(),
  /** this branch's own processing pipeline; the default pipeline when absent */
  pipeline: PipelineConfigSchema.optional(),
  merged_from: z
    .array(
      z.object({
        branch_id: z.string(),
        merge_id: z.string(),
        strategy: MergeStrategyNameSchema,
        at: z.string(),
      }),
    )
    .default([]),
  created_at: z.string(),
  updated_at: z.string(),
});
export type Branch = z.infer<typeof BranchSchema>;
export type BranchInput = z.input<typeof BranchSchema>;
