import { z } from "zod";
import { ApiProtocolSchema, ThinkingLevelSchema } from "../model/llm-config.js";
import { PersonRefSchema } from "../model/person.js";
import { CostedUsageSchema } from "../model/usage-cost.js";
import { MAX_TEXT_CHARS, TextPayloadSchema } from "./requests.js";
import { strictRequest } from "./strict.js";

// "Ask N ways" on the wire (issue #14, REQ-196–209 in the product): the request of
// POST /api/sessions/{id}/messages/parallel and the SSE events its stream adds. Every event names
// the group and, where it concerns one candidate, that candidate's index (0-based, request order).

/** At most this many candidates in one request (each is a model request at the same time). */
export const MAX_PARALLEL_CANDIDATES = 8;

const ModelChoiceSchema = z
  .object({
    protocol: ApiProtocolSchema,
    model: z.string().min(1),
  })
  .describe("a model other than the session's; its provider's key comes from the environment");

export const ParallelCandidateSchema = z
  .object({
    label: z
      .string()
      .min(1)
      .max(80, "at most 80 characters")
      .optional()
      .describe("shown on the candidate's column; default `Candidate {n}`"),
    model: ModelChoiceSchema.optional().describe("default: the session's model"),
    system_prompt: z
      .string()
      .max(MAX_TEXT_CHARS, `at most ${MAX_TEXT_CHARS} characters`)
      .optional()
      .describe("replaces the session's system prompt for this candidate only"),
    temperature: z.number().min(0).max(2).optional().describe("0–2; default the provider's"),
    thinking_level: ThinkingLevelSchema.optional().describe("default: the session's"),
  })
  .describe("One way of answering: the session's settings with these changes.");
export type ParallelCandidate = z.infer<typeof ParallelCandidateSchema>;

export const ParallelStrategyNameSchema = z
  .enum(["llm_judge", "pick_first", "token_efficient", "elaborate"])
  .describe(
    "llm_judge: a model reads the answers and names the best (REQ-201); pick_first: candidate 0; token_efficient: the fewest tokens; elaborate: the most tokens. A candidate that failed is passed over while another finished",
  );
export type ParallelStrategyName = z.infer<typeof ParallelStrategyNameSchema>;

export const ParallelJudgeSchema = z
  .object({
    strategy: ParallelStrategyNameSchema.default("llm_judge"),
    model: ModelChoiceSchema.optional().describe(
      "llm_judge: the judge's model (default the session's)",
    ),
    system_prompt: z
      .string()
      .min(1)
      .max(MAX_TEXT_CHARS, `at most ${MAX_TEXT_CHARS} characters`)
      .optional()
      .describe("llm_judge: replaces the default judge instructions"),
  })
  .describe("How the answer is chosen.");
export type ParallelJudge = z.infer<typeof ParallelJudgeSchema>;

export const ParallelMessageRequestSchema = strictRequest(
  z
    .object({
      session_id: z.string().min(1).describe("the session the message goes to"),
      payload: TextPayloadSchema.describe("the message (text only)"),
      candidates: z
        .array(ParallelCandidateSchema)
        .min(2, "at least 2 candidates")
        .max(MAX_PARALLEL_CANDIDATES, `at most ${MAX_PARALLEL_CANDIDATES} candidates`)
        .describe(`2–${MAX_PARALLEL_CANDIDATES} ways to answer, run at the same time`),
      judge: ParallelJudgeSchema.default({ strategy: "llm_judge" }),
      client_metadata: z
        .record(z.string(), z.unknown())
        .optional()
        .describe("opaque client data, stored with the user's message; never sent to the model"),
    })
    .describe(
      "Body of POST /api/sessions/{id}/messages/parallel (ask N ways). The response is an SSE stream.",
    ),
);
export type ParallelMessageRequest = z.infer<typeof ParallelMessageRequestSchema>;

// ---- events -----------------------------------------------------------------------------------

export const ParallelStartedSchema = z.object({
  context_id: z.string(),
  group_id: z.string().describe("the parallel group's loop id (the admin loop tree shows it)"),
  message_id: z.string().describe("the user's message all candidates answer"),
  strategy: ParallelStrategyNameSchema,
  candidates: z.array(
    z.object({
      index: z.number().int().nonnegative(),
      label: z.string(),
      loop_id: z.string(),
      model: z.string(),
      thinking_level: ThinkingLevelSchema,
      temperature: z.number().optional(),
    }),
  ),
});
export type ParallelStarted = z.infer<typeof ParallelStartedSchema>;

export const CandidateDeltaSchema = z.object({
  context_id: z.string(),
  group_id: z.string(),
  candidate: z.number().int().nonnegative(),
  delta: z.string(),
  channel: z.enum(["text", "thinking"]),
});
export type CandidateDelta = z.infer<typeof CandidateDeltaSchema>;

export const CandidateToolSchema = z.object({
  context_id: z.string(),
  group_id: z.string(),
  candidate: z.number().int().nonnegative(),
  tool_call_id: z.string().describe("decide a pending call through POST …/approvals with this id"),
  tool_name: z.string(),
  arguments: z.record(z.string(), z.unknown()).optional(),
  status: z
    .enum(["pending_approval", "approved", "denied", "running", "done", "failed"])
    .describe(
      "pending_approval: the candidate waits for a decision (the others go on); approved / denied: the decision (by the policy or the user); running, then done or failed",
    ),
  decided_by: PersonRefSchema.nullable()
    .optional()
    .describe("who approved or denied the call (with `approved` / `denied` decided by a person)"),
});
export type CandidateTool = z.infer<typeof CandidateToolSchema>;

export const CandidateFinishedSchema = z.object({
  context_id: z.string(),
  group_id: z.string(),
  candidate: z.number().int().nonnegative(),
  loop_id: z.string(),
  status: z
    .enum(["complete", "failed", "aborted"])
    .describe("failed: its model request failed; aborted: interrupted"),
  text: z.string().describe("its final answer's text"),
  error: z.string().optional(),
  usage: CostedUsageSchema.describe("its loop's tokens, priced by its model"),
});
export type CandidateFinished = z.infer<typeof CandidateFinishedSchema>;

export const ParallelVerdictSchema = z.object({
  context_id: z.string(),
  group_id: z.string(),
  strategy: ParallelStrategyNameSchema,
  selected: z.number().int().nonnegative().describe("the chosen candidate's index"),
  reason: z.string().describe("why: the judge's reply (500 characters), or the strategy's rule"),
  fallback: z
    .literal(true)
    .optional()
    .describe(
      "the strategy chose nothing (a judge reply naming no candidate, a failed evaluation), so the first candidate was taken; `reason` says why",
    ),
  candidates: z
    .array(
      z.object({
        index: z.number().int().nonnegative(),
        branch_id: z
          .string()
          .describe("the chosen one: the active branch; every other: its own new branch"),
        message_ids: z.array(z.string()).describe("its stored messages, in order"),
      }),
    )
    .describe("where each candidate's answer is kept"),
  evaluation_usage: CostedUsageSchema.describe(
    "what choosing cost (the judge's request), priced by the judge's model; $0 for the other strategies",
  ),
  usage: CostedUsageSchema.describe(
    "every candidate's usage and the evaluation's, summed; `cost_complete` false when one has no price",
  ),
});
export type ParallelVerdict = z.infer<typeof ParallelVerdictSchema>;

export type ParallelEventBody =
  | { name: "parallel_started"; payload: ParallelStarted }
  | { name: "candidate_delta"; payload: CandidateDelta }
  | { name: "candidate_tool"; payload: CandidateTool }
  | { name: "candidate_finished"; payload: CandidateFinished }
  | { name: "parallel_verdict"; payload: ParallelVerdict };

/** Each parallel event's schema and what it means (docs, stored-event parsing). */
export const PARALLEL_EVENT_SCHEMAS = {
  parallel_started: {
    schema: ParallelStartedSchema,
    about:
      "Ask N ways: the user's message is stored and its candidates start, each with its index, label, model and loop id.",
  },
  candidate_delta: {
    schema: CandidateDeltaSchema,
    about: "One chunk of a candidate's streaming answer (its column).",
  },
  candidate_tool: {
    schema: CandidateToolSchema,
    about:
      "A candidate's tool call: waiting for approval (only this candidate waits), decided, running, done.",
  },
  candidate_finished: {
    schema: CandidateFinishedSchema,
    about: "A candidate's loop ended, with its final text and usage.",
  },
  parallel_verdict: {
    schema: ParallelVerdictSchema,
    about:
      "The chosen candidate and why; the chosen answer now continues the active branch (its messages' `created` updates follow) and every other candidate is kept on a branch of its own.",
  },
} as const satisfies Record<ParallelEventBody["name"], { schema: z.ZodType; about: string }>;

export const ChooseParallelAnswerRequestSchema = strictRequest(
  z
    .object({
      candidate: z
        .number()
        .int()
        .nonnegative()
        .describe("the index of the candidate whose answer the conversation goes on with"),
    })
    .describe("Takes another candidate's answer after the verdict."),
);
export type ChooseParallelAnswerRequest = z.infer<typeof ChooseParallelAnswerRequestSchema>;

export const ParallelChoiceResponseSchema = z.object({
  group_id: z.string(),
  selected: z.number().int().nonnegative().describe("the candidate now chosen"),
  branch_ids: z
    .array(z.string())
    .describe("per candidate, in request order: the branch that keeps its answer"),
  notice_id: z.string().describe("the verdict notice now on the active branch"),
});
