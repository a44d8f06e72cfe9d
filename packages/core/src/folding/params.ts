import { z } from "zod";

// The arguments of `branch` and `return`, as Arbor's own agents call them (fold-runtime.ts) and as
// other agents call them over MCP (mcp-server.ts): the spec's limits (a description of at most
// 500 characters, a prompt of at most 10 000).

export const BranchParams = z.object({
  description: z.string().min(1).max(500).describe("what the fold is for, in a line"),
  prompt: z.string().min(1).max(10_000).describe("the sub-task, as the fold's first message"),
  budget: z.number().int().positive().optional().describe("tokens (default 8192, at most 32768)"),
  timeout_seconds: z
    .number()
    .positive()
    .optional()
    .describe("seconds before the fold is forced to return (default 300, at most 600)"),
});

export const ReturnParams = z.object({
  message: z.string().describe("what the fold found, short: the parent keeps only this"),
  remember: z
    .boolean()
    .optional()
    .describe("keep the message as a lesson for later folds of this workspace"),
});

/** Over MCP the calling agent works the fold itself: its prompt is its own, so optional. */
export const McpBranchParams = BranchParams.extend({
  prompt: z
    .string()
    .max(10_000)
    .optional()
    .describe("the sub-task, for the record (you work the fold yourself)"),
});

/** Over MCP `return` may name the fold; the innermost open one by default. */
export const McpReturnParams = ReturnParams.extend({
  fold_id: z
    .string()
    .optional()
    .describe("the fold to return from (default: the active one); folds inside it are forced"),
});
