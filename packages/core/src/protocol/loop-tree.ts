import { z } from "zod";
import {
  type AgentMessage,
  AssistantMessageSchema,
  ExtensionMessageSchema,
  ToolResultMessageSchema,
  UserMessageSchema,
} from "../model/llm-messages.js";
import {
  ContinuationKindSchema,
  type LoopRecord,
  LoopStatusSchema,
  type ParallelGroupRecord,
  type SessionLoopTree,
  type SpawnRef,
} from "../model/loop-records.js";
import { PersonRefSchema } from "../model/person.js";
import {
  type CostedUsage,
  CostedUsageSchema,
  type PriceOf,
  pricedUsage,
  sumCostedUsage,
  withCost,
} from "../model/usage-cost.js";

// The admin loop tree on the wire (GET /api/admin/sessions/{id}/loops). The recorder keeps its
// records in camelCase (session/records.ts, stored as they are); every route answers snake_case,
// so this is the one place that renames the fields. Usage and the run's messages keep the shapes
// the other routes already use (a session summary's `usage`, the agent's message format), each
// usage with its cost (model/usage-cost.ts): per message by its model, per loop by the loop's
// model, and the whole tree's sum. The prices come in as `priceOf` (llm/pricing.ts sits above).

/** The agent's message format, its usage with the cost. */
const LoopMessageSchema = z.discriminatedUnion("role", [
  UserMessageSchema,
  AssistantMessageSchema.extend({ usage: CostedUsageSchema }),
  ToolResultMessageSchema.extend({
    usage: CostedUsageSchema.optional().describe(
      "a sub-agent's child loop's tokens, priced by `model` (its run is a loop of its own in this tree too)",
    ),
  }),
  ExtensionMessageSchema,
]);
type LoopMessage = z.infer<typeof LoopMessageSchema>;

const SpawnRefWireSchema = z.object({
  parent_session_id: z.string(),
  parent_loop_id: z.string(),
  parent_agent_id: z.string(),
  tool_call_id: z.string().optional(),
  tool_name: z.string().optional(),
});

export const LoopTreeLoopSchema = z.object({
  loop_id: z.string(),
  session_id: z.string(),
  agent_id: z.string(),
  parent_loop_id: z
    .string()
    .optional()
    .describe("the loop this one continues (same session) or was spawned from (sub-agent)"),
  continuation_kind: ContinuationKindSchema.optional(),
  status: LoopStatusSchema,
  started_at: z.number().describe("epoch milliseconds"),
  ended_at: z.number().optional().describe("epoch milliseconds"),
  duration_ms: z.number().nonnegative().optional(),
  usage: CostedUsageSchema.describe(
    "this run's own tokens (its sub-agents, folds and judge are loops of their own), priced by its model (`config.model`); a run that spent nothing costs 0",
  ),
  turns: z.number().int().nonnegative().describe("turns started"),
  messages: z
    .array(LoopMessageSchema)
    .describe("the messages this run added, in the agent's message format; empty until it ends"),
  child_loop_ids: z.array(z.string()).describe("continuations and sub-agents, in start order"),
  child_loop_refs: z
    .array(
      z.object({
        tool_call_id: z.string(),
        tool_name: z.string(),
        child_session_id: z.string(),
        child_loop_id: z.string(),
      }),
    )
    .describe("sub-agent children with the tool call that ran them"),
  spawn_ref: SpawnRefWireSchema.optional().describe(
    "a sub-agent loop whose parent lives in another session",
  ),
  config: z
    .object({ model: z.string(), provider: z.string(), config_id: z.string().optional() })
    .optional()
    .describe("the model that ran the loop"),
  error: z.string().optional(),
  started_by: PersonRefSchema.optional().describe(
    "the person who started the run (sent the message, decided the calls it continues, resumed …)",
  ),
  parallel_group: z
    .object({
      group_id: z.string(),
      loop_ids: z.array(z.string()),
      selected_loop_id: z.string().optional(),
      selected_config_index: z.number().int().nonnegative().optional(),
      is_selected: z.boolean(),
      evaluation_usage: CostedUsageSchema.optional().describe(
        "what the judge spent, priced by the judge's model (the strategies that ask no model spend nothing: $0); the judge's own loop in this tree carries the same tokens, so the tree's `usage` counts them once. A group recorded before the judge's model was kept has `cost_usd` null",
      ),
    })
    .optional(),
});
export type LoopTreeLoop = z.infer<typeof LoopTreeLoopSchema>;

export const LoopTreeResponseSchema = z
  .object({
    session_id: z.string(),
    agent_id: z.string(),
    loops: z.array(LoopTreeLoopSchema).describe("every agent-loop run, in start order"),
    parent_spawn_ref: SpawnRefWireSchema.optional(),
    usage: CostedUsageSchema.describe(
      "the whole tree: every loop's usage (runs, continuations, sub-agents, folds, candidates and the judge) summed with its cost; `cost_complete` false when some loop's model has no price",
    ),
  })
  .describe("Answer to GET /api/admin/sessions/{id}/loops.");
export type LoopTreeResponse = z.infer<typeof LoopTreeResponseSchema>;

function spawnRefWire(ref: SpawnRef): z.infer<typeof SpawnRefWireSchema> {
  return {
    parent_session_id: ref.parentSessionId,
    parent_loop_id: ref.parentLoopId,
    parent_agent_id: ref.parentAgentId,
    ...(ref.toolCallId !== undefined ? { tool_call_id: ref.toolCallId } : {}),
    ...(ref.toolName !== undefined ? { tool_name: ref.toolName } : {}),
  };
}

/** What the judge spent, priced by its model; nothing spent costs nothing. */
function evaluationUsage(group: ParallelGroupRecord, priceOf: PriceOf): CostedUsage | undefined {
  const usage = group.evaluationUsage;
  if (usage === undefined) return undefined;
  if (usage.totalTokens === 0) return withCost(usage, 0);
  return pricedUsage(usage, group.evaluationModel, priceOf);
}

function parallelGroupWire(
  group: ParallelGroupRecord,
  priceOf: PriceOf,
): LoopTreeLoop["parallel_group"] {
  const evaluation = evaluationUsage(group, priceOf);
  return {
    group_id: group.groupId,
    loop_ids: group.loopIds,
    ...(group.selectedLoopId !== undefined ? { selected_loop_id: group.selectedLoopId } : {}),
    ...(group.selectedConfigIndex !== undefined
      ? { selected_config_index: group.selectedConfigIndex }
      : {}),
    is_selected: group.isSelected,
    ...(evaluation !== undefined ? { evaluation_usage: evaluation } : {}),
  };
}

/** A loop's own usage priced by its model; nothing spent costs nothing, whatever the model. */
function loopUsage(loop: LoopRecord, priceOf: PriceOf): CostedUsage {
  if (loop.usage.totalTokens === 0) return withCost(loop.usage, 0);
  return pricedUsage(loop.usage, loop.config?.model, priceOf);
}

function loopMessage(message: AgentMessage, priceOf: PriceOf): LoopMessage {
  switch (message.role) {
    case "assistant":
      return { ...message, usage: pricedUsage(message.usage, message.model, priceOf) };
    case "toolResult": {
      const { usage, ...rest } = message;
      return usage === undefined
        ? rest
        : { ...rest, usage: pricedUsage(usage, message.model, priceOf) };
    }
    case "user":
    case "extension":
      return message;
    default:
      return message satisfies never;
  }
}

/** One loop record as the wire shows it; optional fields absent stay absent. */
export function loopTreeLoop(loop: LoopRecord, priceOf: PriceOf): LoopTreeLoop {
  return {
    loop_id: loop.loopId,
    session_id: loop.sessionId,
    agent_id: loop.agentId,
    ...(loop.parentLoopId !== undefined ? { parent_loop_id: loop.parentLoopId } : {}),
    ...(loop.continuationKind !== undefined ? { continuation_kind: loop.continuationKind } : {}),
    status: loop.status,
    started_at: loop.startedAt,
    ...(loop.endedAt !== undefined ? { ended_at: loop.endedAt } : {}),
    ...(loop.durationMs !== undefined ? { duration_ms: loop.durationMs } : {}),
    usage: loopUsage(loop, priceOf),
    turns: loop.turns,
    messages: loop.messages.map((message) => loopMessage(message, priceOf)),
    child_loop_ids: loop.childLoopIds,
    child_loop_refs: loop.childLoopRefs.map((ref) => ({
      tool_call_id: ref.toolCallId,
      tool_name: ref.toolName,
      child_session_id: ref.childSessionId,
      child_loop_id: ref.childLoopId,
    })),
    ...(loop.spawnRef !== undefined ? { spawn_ref: spawnRefWire(loop.spawnRef) } : {}),
    ...(loop.config !== undefined
      ? {
          config: {
            model: loop.config.model,
            provider: loop.config.provider,
            ...(loop.config.configId !== undefined ? { config_id: loop.config.configId } : {}),
          },
        }
      : {}),
    ...(loop.error !== undefined ? { error: loop.error } : {}),
    ...(loop.startedBy !== undefined ? { started_by: loop.startedBy } : {}),
    ...(loop.parallelGroup !== undefined
      ? { parallel_group: parallelGroupWire(loop.parallelGroup, priceOf) }
      : {}),
  };
}

/** The answer of GET /api/admin/sessions/{id}/loops for a session's loop tree. */
export function loopTreeResponse(tree: SessionLoopTree, priceOf: PriceOf): LoopTreeResponse {
  const loops = tree.loops.map((loop) => loopTreeLoop(loop, priceOf));
  return {
    session_id: tree.sessionId,
    agent_id: tree.agentId,
    loops,
    ...(tree.parentSpawnRef !== undefined
      ? { parent_spawn_ref: spawnRefWire(tree.parentSpawnRef) }
      : {}),
    usage: sumCostedUsage(loops.map((loop) => loop.usage)),
  };
}
