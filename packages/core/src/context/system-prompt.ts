import type { AgentMode, AgentRole } from "../model/session-config.js";
import { type AnyAgentTool, toolDefinition } from "../tools/tool.js";
import { ASK_QUESTION, PRESENT_PLAN, toolsForMode } from "./plan-act.js";

// The system prompt builder (context-manager "Dynamic System Prompt Management"). Sections, in
// order: the base prompt (a branch's own prompt replaces it for that branch), the mode's
// instructions, the role (act mode only), the tools the model may call, the workspace. The output depends only on
// the input: no dates, no environment, so the same input gives byte-identical prompts (which also
// keeps provider prompt caches warm).

export const DEFAULT_BASE_PROMPT = [
  "You are Arbor, a careful software engineering assistant working in the user's project.",
  "Be precise and concise. Base your statements on what you have actually read; say so when you are unsure.",
].join("\n");

export const PLAN_MODE_INSTRUCTIONS = [
  "## Mode: Plan",
  "You are planning, not carrying out. Investigate with the read-only tools until you understand the task.",
  `Then call ${PRESENT_PLAN} with a short summary and ordered steps, each with a title and, where useful, a detail.`,
  `If something is unclear and you cannot find the answer yourself, call ${ASK_QUESTION}, offering choices where sensible.`,
  "Do not modify anything: no file changes, no commands with side effects. The user reviews your plan and switches to Act mode to carry it out.",
].join("\n");

export const ACT_MODE_INSTRUCTIONS = [
  "## Mode: Act",
  "Carry out the user's task. Use the tools to inspect, change and verify; do not stop at describing what you would do.",
  "Be careful with writes: read a file before changing it, keep changes focused, avoid destructive commands, and check the result.",
  `If the task is ambiguous in a way you cannot resolve by reading, call ${ASK_QUESTION} rather than guessing.`,
].join("\n");

const ROLE_INSTRUCTIONS: Readonly<Record<AgentRole, string>> = {
  planner: "## Role: Planner\nYou analyse and plan. Only read-only tools are available to you.",
  actor: "## Role: Actor\nYou carry out work; every tool listed below is available to you.",
};

export interface PromptWorkspace {
  /** the workspace root as the user knows it */
  path: string;
  /** workspace-specific instructions (conventions, commands, no-go areas) */
  instructions?: string;
}

export interface SystemPromptInput {
  /** the session's base prompt; DEFAULT_BASE_PROMPT when absent or blank */
  basePrompt?: string;
  /** the current branch's own prompt: replaces the base prompt for that branch only */
  branchPrompt?: string;
  mode: AgentMode;
  role: AgentRole;
  /** the session's tools; filtered here by mode and role with toolsForMode */
  tools: readonly AnyAgentTool[];
  workspace?: PromptWorkspace;
  /** usage examples by tool name, listed under that tool */
  examples?: Readonly<Record<string, readonly string[]>>;
  /**
   * the request carries the tool definitions (every provider Arbor speaks does): the prompt then
   * names the tools without repeating their descriptions and parameters (issue #15, "no waste in
   * the fixed part"); false for a model that only learns its tools from the prompt
   */
  nativeTools?: boolean;
  /**
   * the skills section (session-extensions.ts skillsSection: `<available_skills>`, REQ-111/113),
   * appended last; absent or "" when the session has no skills
   */
  skills?: string;
}

/** Builds the system prompt. Deterministic: equal inputs give equal strings. */
export function buildSystemPrompt(input: SystemPromptInput): string {
  const sections = [
    chooseBasePrompt(input.basePrompt, input.branchPrompt),
    modeInstructions(input.mode),
    // plan mode already narrows what the model may do, whatever the role
    input.mode === "act" ? ROLE_INSTRUCTIONS[input.role] : undefined,
    toolsSection(
      toolsForMode(input.tools, input.mode, input.role),
      input.examples ?? {},
      input.nativeTools ?? true,
    ),
    input.workspace ? workspaceSection(input.workspace) : undefined,
    input.skills,
  ];
  return sections.filter((s): s is string => s !== undefined && s !== "").join("\n\n");
}

/** The branch's prompt wins; the session's base prompt is the fallback; then the default. */
export function chooseBasePrompt(basePrompt?: string, branchPrompt?: string): string {
  if (branchPrompt?.trim()) return branchPrompt.trim();
  if (basePrompt?.trim()) return basePrompt.trim();
  return DEFAULT_BASE_PROMPT;
}

function modeInstructions(mode: AgentMode): string {
  switch (mode) {
    case "plan":
      return PLAN_MODE_INSTRUCTIONS;
    case "act":
      return ACT_MODE_INSTRUCTIONS;
    default:
      return mode satisfies never;
  }
}

function toolsSection(
  tools: readonly AnyAgentTool[],
  examples: Readonly<Record<string, readonly string[]>>,
  nativeTools: boolean,
): string {
  if (tools.length === 0) return "## Tools\nNo tools are available; answer from the conversation.";
  if (nativeTools) {
    // the request's tool definitions carry each description and schema: only the names here
    const entries = tools.map((tool) =>
      [`### ${tool.name}`, ...exampleLines(examples[tool.name] ?? [])].join("\n"),
    );
    return [
      "## Tools",
      "Call a tool by its name; each tool's description and parameters come with the request.",
      entries.join("\n"),
    ].join("\n\n");
  }
  const entries = tools.map((tool) => formatToolForPrompt(tool, examples[tool.name] ?? []));
  return [
    "## Tools",
    "Call a tool by its name with arguments matching its parameters.",
    ...entries,
  ].join("\n\n");
}

/** One tool, always in the same shape: name, description, parameters, then examples if any. */
export function formatToolForPrompt(tool: AnyAgentTool, examples: readonly string[] = []): string {
  const lines = [`### ${tool.name}`, tool.description.trim()];
  const params = parameterLines(toolDefinition(tool).parameters);
  lines.push(params.length > 0 ? "Parameters:" : "Parameters: none");
  lines.push(...params, ...exampleLines(examples));
  return lines.join("\n");
}

function exampleLines(examples: readonly string[]): string[] {
  return examples.length === 0 ? [] : ["Examples:", ...examples.map((example) => `- ${example}`)];
}

/** "- name (type, required|optional): description" for each top-level property. */
function parameterLines(schema: Record<string, unknown>): string[] {
  const properties = asRecord(schema.properties);
  if (!properties) return [];
  const required = new Set(
    Array.isArray(schema.required) ? schema.required.filter((r) => typeof r === "string") : [],
  );
  return Object.entries(properties).map(([name, raw]) => {
    const prop = asRecord(raw) ?? {};
    const description = typeof prop.description === "string" ? `: ${prop.description}` : "";
    const need = required.has(name) ? "required" : "optional";
    return `- ${name} (${typeName(prop)}, ${need})${description}`;
  });
}

function typeName(prop: Record<string, unknown>): string {
  if (Array.isArray(prop.enum)) return prop.enum.map((v) => JSON.stringify(v)).join(" | ");
  if (typeof prop.type === "string") {
    if (prop.type !== "array") return prop.type;
    const items = asRecord(prop.items);
    return `array of ${items ? typeName(items) : "any"}`;
  }
  if (Array.isArray(prop.type)) return prop.type.join(" | ");
  const variants = prop.anyOf ?? prop.oneOf;
  if (Array.isArray(variants)) {
    return variants.map((v) => typeName(asRecord(v) ?? {})).join(" | ");
  }
  return "any";
}

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

function workspaceSection(workspace: PromptWorkspace): string {
  const lines = [
    "## Workspace",
    `The workspace is ${workspace.path}.`,
    "File paths are relative to the workspace root; tools cannot reach outside it.",
  ];
  if (workspace.instructions?.trim()) {
    lines.push("", "Workspace instructions:", workspace.instructions.trim());
  }
  return lines.join("\n");
}
