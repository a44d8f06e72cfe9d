import { z } from "zod";
import {
  type BodyOf,
  PlanBodySchema,
  PlanStepSchema,
  QuestionBodySchema,
  type ToolCallRequest,
} from "../model/message-types.js";
import type { AgentMode, AgentRole } from "../model/session-config.js";
import { type AnyAgentTool, defineTool } from "../tools/tool.js";

// Plan / Act (plan-act spec; context-manager "Role-based tool filtering"). In plan mode the model
// investigates with read-only tools and answers through two tools of its own: present_plan and
// ask_question. Act mode offers ask_question too ("question handling states SHALL be available"),
// so a model that meets an ambiguity while acting asks instead of guessing. Their calls are not really "executed": the Session turns them into Plan and
// Question messages (planBodyFromCall / questionBodyFromCall). Their execute only validates and
// acknowledges, so the agent loop can treat them like any other tool.

export const PRESENT_PLAN = "present_plan";
export const ASK_QUESTION = "ask_question";

const presentPlanParameters = z.object({
  summary: z.string().optional().describe("One or two sentences: what the plan achieves."),
  steps: z
    .array(PlanStepSchema)
    .min(1)
    .describe("The ordered steps; each has a short title and an optional detail."),
});

const askQuestionParameters = z.object({
  question: z.string().min(1).describe("The question for the user."),
  choices: z
    .array(z.string().min(1))
    .optional()
    .describe("Suggested answers the user can pick from."),
  allow_free_text: z
    .boolean()
    .optional()
    .describe("Whether the user may answer in their own words (default true)."),
});

export type PlanBody = BodyOf<"plan">;
export type QuestionBody = BodyOf<"question">;

export type PlanToolDetails =
  | { kind: "plan"; plan: PlanBody }
  | { kind: "question"; question: QuestionBody };

export const presentPlanTool = defineTool<typeof presentPlanParameters, PlanToolDetails>({
  name: PRESENT_PLAN,
  label: "Present plan",
  description:
    "Present your plan to the user for review once you have investigated enough. The user approves it (and switches to Act mode) or asks for changes.",
  parameters: presentPlanParameters,
  // it modifies nothing, so plan mode allows it
  category: "other",
  execute: async (params, ctx) => {
    const plan = PlanBodySchema.parse({
      message_type: "plan",
      ...params,
      tool_call_id: ctx.toolCallId,
    });
    const n = plan.steps.length;
    return {
      content: [
        {
          type: "text",
          text: `Plan with ${n} step${n === 1 ? "" : "s"} presented to the user for review.`,
        },
      ],
      details: { kind: "plan", plan },
    };
  },
});

export const askQuestionTool = defineTool<typeof askQuestionParameters, PlanToolDetails>({
  name: ASK_QUESTION,
  label: "Ask question",
  description:
    "Ask the user a question when something is unclear. Offer choices where sensible; wait for the answer before continuing.",
  parameters: askQuestionParameters,
  category: "other",
  execute: async (params, ctx) => {
    const question = QuestionBodySchema.parse({
      message_type: "question",
      ...params,
      tool_call_id: ctx.toolCallId,
    });
    return {
      content: [{ type: "text", text: "Question sent to the user; waiting for the answer." }],
      details: { kind: "question", question },
    };
  },
});

/** The plan-mode tools, in the order they are offered. */
export const PLAN_MODE_TOOLS: readonly AnyAgentTool[] = [presentPlanTool, askQuestionTool];

const PLAN_TOOL_NAMES: ReadonlySet<string> = new Set([PRESENT_PLAN, ASK_QUESTION]);

export function isPlanTool(name: string): boolean {
  return PLAN_TOOL_NAMES.has(name);
}

/** A tool without a category is treated as not read-only (the safe default). */
export function isReadOnlyTool(tool: AnyAgentTool): boolean {
  return tool.category === "read";
}

/** The tools act mode adds after the session's own (whatever the role). */
export const ACT_MODE_TOOLS: readonly AnyAgentTool[] = [askQuestionTool];

/**
 * The tools the model gets for a turn:
 * - plan mode: the read-only tools, then present_plan and ask_question (whatever the role);
 * - act mode, Planner role: the read-only tools, then ask_question;
 * - act mode, Actor role: every tool, then ask_question.
 * present_plan / ask_question are never passed through from `tools`: this function adds its own
 * (present_plan only in plan mode). The input order is kept, so the result is deterministic.
 */
export function toolsForMode(
  tools: readonly AnyAgentTool[],
  mode: AgentMode,
  role: AgentRole,
): AnyAgentTool[] {
  const own = tools.filter((t) => !isPlanTool(t.name));
  switch (mode) {
    case "plan":
      return [...own.filter(isReadOnlyTool), ...PLAN_MODE_TOOLS];
    case "act":
      switch (role) {
        case "planner":
          return [...own.filter(isReadOnlyTool), ...ACT_MODE_TOOLS];
        case "actor":
          return [...own, ...ACT_MODE_TOOLS];
        default:
          return role satisfies never;
      }
    default:
      return mode satisfies never;
  }
}

/**
 * For StateMachine's `isPlanModeTool`: true for the names plan mode offers (read-only tools among
 * `tools`, present_plan, ask_question); false for anything else, unknown names included.
 */
export function planModeToolPredicate(tools: readonly AnyAgentTool[]): (name: string) => boolean {
  const allowed = new Set(toolsForMode(tools, "plan", "planner").map((t) => t.name));
  return (name) => allowed.has(name);
}

export type BodyFromCallResult<T> = { ok: true; body: T } | { ok: false; error: string };

/** The Plan message body for a present_plan call; an error naming the bad field otherwise. */
export function planBodyFromCall(
  call: Pick<ToolCallRequest, "id" | "name" | "arguments">,
): BodyFromCallResult<PlanBody> {
  if (call.name !== PRESENT_PLAN) {
    return { ok: false, error: `expected a ${PRESENT_PLAN} call, got ${call.name}` };
  }
  const params = presentPlanParameters.safeParse(call.arguments);
  if (!params.success) return { ok: false, error: formatIssues(PRESENT_PLAN, params.error) };
  return {
    ok: true,
    body: PlanBodySchema.parse({ message_type: "plan", ...params.data, tool_call_id: call.id }),
  };
}

/** The Question message body for an ask_question call; an error naming the bad field otherwise. */
export function questionBodyFromCall(
  call: Pick<ToolCallRequest, "id" | "name" | "arguments">,
): BodyFromCallResult<QuestionBody> {
  if (call.name !== ASK_QUESTION) {
    return { ok: false, error: `expected an ${ASK_QUESTION} call, got ${call.name}` };
  }
  const params = askQuestionParameters.safeParse(call.arguments);
  if (!params.success) return { ok: false, error: formatIssues(ASK_QUESTION, params.error) };
  return {
    ok: true,
    body: QuestionBodySchema.parse({
      message_type: "question",
      ...params.data,
      tool_call_id: call.id,
    }),
  };
}

function formatIssues(tool: string, error: z.ZodError): string {
  const issues = error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`);
  return `invalid ${tool} arguments: ${issues.join("; ")}`;
}
