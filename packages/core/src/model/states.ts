import { z } from "zod";

// The fine-grained state machine's states (context-manager spec "Fine-Grained State Machine").
// One discriminated union; the data a state carries is all a UI needs to describe it. There are
// no boolean flags beside it: `state.type` says what is happening. The transition table lives in
// state-machine.ts.

export const ContextStateSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("Idle") }),
  z.object({ type: z.literal("ProcessingUserMessage") }),
  z.object({ type: z.literal("ResolvingFileReferences"), count: z.number().int() }),
  z.object({ type: z.literal("EnhancingSystemPrompt") }),
  z.object({ type: z.literal("OptimizingContext") }),
  z.object({ type: z.literal("PreparingLLMRequest") }),
  z.object({ type: z.literal("ConnectingToLLM") }),
  z.object({ type: z.literal("AwaitingLLMFirstChunk") }),
  z.object({
    type: z.literal("StreamingLLMResponse"),
    chunks: z.number().int(),
    chars: z.number().int(),
  }),
  z.object({ type: z.literal("ProcessingLLMResponse") }),
  z.object({ type: z.literal("ParsingToolCalls") }),
  z.object({
    type: z.literal("AwaitingToolApproval"),
    pending_requests: z.array(z.string()),
    tool_names: z.array(z.string()),
  }),
  z.object({
    type: z.literal("ExecutingTool"),
    tool_name: z.string(),
    attempt: z.number().int(),
    /** 1-based position among this round's tools */
    index: z.number().int(),
    total: z.number().int(),
  }),
  z.object({ type: z.literal("CollectingToolResults") }),
  z.object({ type: z.literal("ProcessingToolResults") }),
  z.object({
    type: z.literal("ToolAutoLoop"),
    depth: z.number().int(),
    tools_executed: z.number().int(),
    /** the tools the auto-loop ran so far, each once, in the order they first ran */
    tool_names: z.array(z.string()).default([]),
  }),
  /**
   * plan mode: the model's read-only calls run while it prepares its plan (plan mode never enters
   * the tool execution states, plan-act "State transitions respect mode"); `tool_names` are this
   * round's calls, `tools_executed` counts the run's calls so far
   */
  z.object({
    type: z.literal("ResearchingPlan"),
    tool_names: z.array(z.string()),
    tools_executed: z.number().int(),
  }),
  /** plan mode: the model's present_plan call is being turned into a Plan message */
  z.object({ type: z.literal("ParsingPlan") }),
  /** the model asked the user a question; waiting for the answer */
  z.object({ type: z.literal("AwaitingUserAnswer"), question_message_id: z.string() }),
  /** the user interrupted; a running tool is cancelled at once, nothing further runs */
  z.object({ type: z.literal("Interrupting") }),
  z.object({ type: z.literal("Paused"), reason: z.enum(["interrupted", "auto_loop_limit"]) }),
  z.object({ type: z.literal("SwitchingBranch"), from: z.string(), to: z.string() }),
  z.object({ type: z.literal("Merging"), strategy: z.string() }),
  z.object({ type: z.literal("Failed"), error: z.string(), recoverable: z.boolean() }),
]);
export type ContextState = z.infer<typeof ContextStateSchema>;
export type ContextStateType = ContextState["type"];
export type StateOf<T extends ContextStateType> = Extract<ContextState, { type: T }>;
