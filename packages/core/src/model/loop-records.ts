import { z } from "zod";
import { AgentMessageSchema, UsageSchema } from "./llm-messages.js";
import { PersonRefSchema } from "./person.js";

// Loop records (REQ-211–213): what the recorder keeps of each agent-loop run and how the runs of
// one session link into a tree. The zod schemas are the source of truth, as in llm-messages.ts:
// types are inferred from them and restoring a saved record parses through them, so a JSON round
// trip is lossless and checked. Records are plain data (no methods) so they can be stored, sent to
// a browser and parsed back; the operations on them live in recording/session-tree.ts.

/** REQ-180: how a run continues a loop; tags are RFC 3339 UTC timestamps made by the caller. */
export const ContinuationKindSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("default") }),
  z.object({ type: z.literal("rerun"), tag: z.string() }),
  z.object({ type: z.literal("branch"), tag: z.string() }),
]);
export type ContinuationKind = z.infer<typeof ContinuationKindSchema>;

/**
 * "pending": pre-registered before its agentStart (parallel branches, REQ-213);
 * "running": agentStart seen, no agentEnd yet; the rest are terminal.
 */
export const LoopStatusSchema = z.enum(["pending", "running", "completed", "error", "aborted"]);
export type LoopStatus = z.infer<typeof LoopStatusSchema>;

export function isTerminalStatus(status: LoopStatus): boolean {
  return status === "completed" || status === "error" || status === "aborted";
}

/** REQ-211: which model ran the loop, so a record stays meaningful after the config changes. */
export const LoopConfigSnapshotSchema = z.object({
  model: z.string(),
  /** StreamProvider.providerId */
  provider: z.string(),
  /** middle segment of the loop id (REQ-187); absent when the loop id has another shape */
  configId: z.string().optional(),
});
export type LoopConfigSnapshot = z.infer<typeof LoopConfigSnapshotSchema>;

/** REQ-212, parent → child: the tool call of a parent loop that ran a child loop. */
export const ChildLoopRefSchema = z.object({
  toolCallId: z.string(),
  toolName: z.string(),
  childSessionId: z.string(),
  childLoopId: z.string(),
});
export type ChildLoopRef = z.infer<typeof ChildLoopRefSchema>;

/**
 * REQ-212, child → parent: where a sub-agent session came from. The child's agentStart names the
 * parent loop but not the tool call; `toolCallId`/`toolName` are filled in when the parent's
 * toolExecutionEnd arrives (REQ-221), and stay absent if it never does.
 */
export const SpawnRefSchema = z.object({
  parentSessionId: z.string(),
  parentLoopId: z.string(),
  parentAgentId: z.string(),
  toolCallId: z.string().optional(),
  toolName: z.string().optional(),
});
export type SpawnRef = z.infer<typeof SpawnRefSchema>;

/** REQ-213: membership of a loop in a parallel evaluation group (filled by the parallel issue). */
export const ParallelGroupRecordSchema = z.object({
  groupId: z.string(),
  /** every branch loop of the group, in start order */
  loopIds: z.array(z.string()),
  /** set once the evaluation picked a winner */
  selectedLoopId: z.string().optional(),
  selectedConfigIndex: z.number().int().nonnegative().optional(),
  isSelected: z.boolean(),
  /** tokens the evaluation itself spent (judge calls) */
  evaluationUsage: UsageSchema.optional(),
  /** the model that spent them (the judge's last answer's), which prices them */
  evaluationModel: z.string().optional(),
});
export type ParallelGroupRecord = z.infer<typeof ParallelGroupRecordSchema>;

/** REQ-211: one agent-loop run. Times are epoch milliseconds. */
export const LoopRecordSchema = z.object({
  loopId: z.string(),
  sessionId: z.string(),
  agentId: z.string(),
  /** the loop this one continues (same session) or was spawned from (sub-agent, any session) */
  parentLoopId: z.string().optional(),
  continuationKind: ContinuationKindSchema.optional(),
  status: LoopStatusSchema,
  startedAt: z.number(),
  endedAt: z.number().optional(),
  durationMs: z.number().nonnegative().optional(),
  usage: UsageSchema,
  /** number of turns started */
  turns: z.number().int().nonnegative(),
  /** the messages this run added (agentEnd.messages); empty until the loop ends */
  messages: z.array(AgentMessageSchema),
  /** every loop whose parent is this one (continuations and sub-agents), in start order */
  childLoopIds: z.array(z.string()),
  /** sub-agent children with the tool call that ran them */
  childLoopRefs: z.array(ChildLoopRefSchema),
  /**
   * Set on a sub-agent loop whose parent lives in another session: the same value as its
   * session's parentSpawnRef, kept per loop so a store that saves only loop rows loses nothing.
   */
  spawnRef: SpawnRefSchema.optional(),
  config: LoopConfigSnapshotSchema.optional(),
  error: z.string().optional(),
  parallelGroup: ParallelGroupRecordSchema.optional(),
  /** the person who started the run (sent the message, approved the calls, resumed …) */
  startedBy: PersonRefSchema.optional(),
  /**
   * W3C traceparent of the loop's invoke_agent span (when traces were recorded): a continuation,
   * on any instance and after a restart, puts its span in the same trace (telemetry/)
   */
  traceparent: z.string().optional(),
});
export type LoopRecord = z.infer<typeof LoopRecordSchema>;

/**
 * REQ-211's `Session`: the loops of one session (conversation), ordered by start. Named for what
 * it holds because `SessionRecord` is the store's persisted conversation (store/types.ts).
 */
export const SessionLoopTreeSchema = z.object({
  sessionId: z.string(),
  agentId: z.string(),
  loops: z.array(LoopRecordSchema),
  parentSpawnRef: SpawnRefSchema.optional(),
});
export type SessionLoopTree = z.infer<typeof SessionLoopTreeSchema>;

/** Parses (and so validates) a loop record restored from storage or the wire. */
export function parseLoopRecord(value: unknown): LoopRecord {
  return LoopRecordSchema.parse(value);
}

/** Parses (and so validates) a session's loop tree restored from storage or the wire. */
export function parseSessionLoopTree(value: unknown): SessionLoopTree {
  return SessionLoopTreeSchema.parse(value);
}
