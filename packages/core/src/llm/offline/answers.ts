import type { ToolDefinition } from "../../model/llm-config.js";
import type {
  AssistantMessage,
  Message,
  ToolResultMessage,
  UserMessage,
} from "../../model/llm-messages.js";
import { type Intent, parseIntent } from "./intent.js";
import { PATH_KEYS, PATTERN_KEYS, summariseOutcome, type ToolOutcome } from "./tool-summaries.js";

// What the offline model says. A pure function of the conversation and the tools offered, so the
// same request always gets the same answer (timestamps aside, which the provider adds).

export type OfflineAnswer =
  | { kind: "text"; text: string }
  | {
      kind: "toolCall";
      /** a short sentence streamed before the call */
      text: string;
      toolCallId: string;
      toolName: string;
      arguments: Record<string, unknown>;
    };

export interface AnswerRequest {
  messages: readonly Message[];
  tools: readonly ToolDefinition[];
}

export const OFFLINE_MODEL_ID = "arbor-offline";
export const OFFLINE_MODEL_NAME = "Arbor offline model";

export function composeAnswer(request: AnswerRequest): OfflineAnswer {
  const last = request.messages.at(-1);
  if (!last) return { kind: "text", text: welcome(request.tools, undefined) };
  switch (last.role) {
    case "user":
      return answerUser(last, request);
    case "toolResult":
      return { kind: "text", text: answerToolResults(request.messages) };
    case "assistant":
      // Nothing new to answer (a continuation after a finished reply).
      return {
        kind: "text",
        text: `I'm the ${OFFLINE_MODEL_NAME}. Send me a message, for example "list files", and I'll take it from there.`,
      };
    default:
      return last satisfies never;
  }
}

// ---- user messages ---------------------------------------------------------------------------

function answerUser(message: UserMessage, request: AnswerRequest): OfflineAnswer {
  const text = userText(message);
  const intent = parseIntent(text);
  const tools = request.tools;
  switch (intent.kind) {
    case "listFiles": {
      const where = intent.path === "." ? "in the workspace" : `in \`${intent.path}\``;
      return callOrExplain(request, "list_files", `Let me list the files ${where}.`, {
        path: intent.path,
      });
    }
    case "readFile":
      return callOrExplain(request, "read_file", `Let me read \`${intent.path}\`.`, {
        path: intent.path,
      });
    case "search": {
      const scope = intent.path ? ` in \`${intent.path}\`` : "";
      return callOrExplain(request, "search", `Let me search for \`${intent.pattern}\`${scope}.`, {
        pattern: intent.pattern,
        ...(intent.path ? { path: intent.path } : {}),
      });
    }
    case "findDefinition":
      return callOrExplain(
        request,
        "search",
        `Let me search for \`${intent.identifier}\` to find where it is defined.`,
        { pattern: intent.identifier },
      );
    case "clarify":
      return {
        kind: "text",
        text:
          intent.missing === "path"
            ? 'Which file should I read? Name it with its path, e.g. "read package.json" or "show me src/index.ts".'
            : 'What should I search for? Put the text in quotes, e.g. search for "TODO".',
      };
    case "greeting":
      return { kind: "text", text: `Hello! ${welcome(tools, undefined)}` };
    case "help":
      return { kind: "text", text: welcome(tools, undefined) };
    case "chat":
      return { kind: "text", text: welcome(tools, text) };
    default:
      return intent satisfies never;
  }
}

/** A tool call when the tool is offered, else an explanation of why it can't be done. */
function callOrExplain(
  request: AnswerRequest,
  toolName: "list_files" | "read_file" | "search",
  lead: string,
  wanted: { path?: string; pattern?: string },
): OfflineAnswer {
  const tool = request.tools.find((t) => t.name === toolName);
  if (!tool) {
    return {
      kind: "text",
      text:
        `I would use the \`${toolName}\` tool for that, but it isn't enabled in this session ` +
        `(it may be switched off, or the current mode doesn't allow it).\n\n${capabilities(request.tools)}`,
    };
  }
  return {
    kind: "toolCall",
    text: lead,
    toolCallId: nextToolCallId(request.messages),
    toolName,
    arguments: toolArguments(tool, wanted),
  };
}

/**
 * Fits the wanted values to the names the tool's JSON Schema uses (path vs file_path, pattern vs
 * query); a tool without a readable schema gets the plain names.
 */
export function toolArguments(
  tool: ToolDefinition,
  wanted: { path?: string; pattern?: string },
): Record<string, unknown> {
  const properties = tool.parameters.properties;
  const names =
    typeof properties === "object" && properties !== null ? Object.keys(properties) : undefined;
  const out: Record<string, unknown> = {};
  const place = (value: string | undefined, aliases: readonly string[]): void => {
    if (value === undefined) return;
    const key = names ? aliases.find((alias) => names.includes(alias)) : aliases[0];
    if (key !== undefined) out[key] = value;
  };
  place(wanted.pattern, PATTERN_KEYS);
  place(wanted.path, PATH_KEYS);
  return out;
}

/**
 * Ids unique within the session and the same for the same conversation. The number counts the
 * calls already made; the suffix fingerprints the whole conversation (texts and timestamps), so
 * two branches forked from one point that each call a tool get different ids and an append merge
 * of both never sees one call answered twice.
 */
function nextToolCallId(messages: readonly Message[]): string {
  let calls = 0;
  for (const message of messages) {
    if (message.role !== "assistant") continue;
    for (const block of message.content) if (block.type === "toolCall") calls++;
  }
  return `offline_call_${calls + 1}_${fingerprint(JSON.stringify(messages))}`;
}

/** FNV-1a over the UTF-16 code units, 32 bits, as 7 base-36 digits: short and deterministic. */
function fingerprint(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(36).padStart(7, "0");
}

function userText(message: UserMessage): string {
  return message.content
    .flatMap((block) => (block.type === "text" ? [block.text] : []))
    .join("\n")
    .trim();
}

// ---- tool results ----------------------------------------------------------------------------

function answerToolResults(messages: readonly Message[]): string {
  const results: ToolResultMessage[] = [];
  let call: AssistantMessage | undefined;
  let asked: UserMessage | undefined;
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i];
    if (!message) continue;
    if (message.role === "toolResult" && !call) results.unshift(message);
    else if (message.role === "assistant" && !call) call = message;
    else if (message.role === "user") {
      asked = message;
      break;
    }
  }
  const argsById = new Map<string, Record<string, unknown>>();
  for (const block of call?.content ?? []) {
    if (block.type === "toolCall") argsById.set(block.id, block.arguments);
  }
  const intent: Intent | undefined = asked ? parseIntent(userText(asked)) : undefined;
  return results
    .map((result) => {
      const outcome: ToolOutcome = {
        toolName: result.toolName,
        args: argsById.get(result.toolCallId) ?? {},
        isError: result.isError,
        text: result.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("\n"),
        imageCount: result.content.filter((b) => b.type === "image").length,
      };
      return summariseOutcome(outcome, intent);
    })
    .join("\n\n");
}

// ---- prose -----------------------------------------------------------------------------------

const INTRO =
  `I'm the **${OFFLINE_MODEL_NAME}** (\`${OFFLINE_MODEL_ID}\`), built into Arbor: it needs no API ` +
  "key and no network, so the agent works right away. It follows simple rules rather than " +
  "understanding language, so keep requests short and direct.";

const CONFIGURE =
  "To use a real model, set a provider key before starting Arbor: `ANTHROPIC_API_KEY`, " +
  "`OPENAI_API_KEY` or `GOOGLE_GENERATIVE_AI_API_KEY`, and optionally `ARBOR_PROVIDER` / " +
  "`ARBOR_MODEL` to pick the provider and model. `packages/core/README.md` lists every " +
  "supported provider (Azure OpenAI, Vertex, Bedrock and OpenAI-compatible servers too).";

const EXAMPLES: ReadonlyArray<{ tool: string; line: string }> = [
  { tool: "list_files", line: '- "list files" (or "list files in src") shows what a folder holds' },
  { tool: "read_file", line: '- "read package.json" or "show me src/index.ts" shows a file' },
  { tool: "search", line: '- "search for TODO" finds text across the files' },
  { tool: "search", line: '- "where is createAgent defined?" looks for a definition' },
];

function capabilities(tools: readonly ToolDefinition[]): string {
  const offered = new Set(tools.map((t) => t.name));
  const lines = EXAMPLES.filter((e) => offered.has(e.tool)).map((e) => e.line);
  if (lines.length === 0) {
    return "No workspace tools are enabled in this session, so I can only explain myself.";
  }
  return `What I can do with the files in this workspace:\n${lines.join("\n")}`;
}

/** The reply to greetings, help requests and anything the rules don't cover. */
function welcome(tools: readonly ToolDefinition[], request: string | undefined): string {
  const parts: string[] = [];
  if (request !== undefined) {
    const echo = request.replace(/\s+/g, " ").trim();
    const short = echo.length > 100 ? `${echo.slice(0, 99)}…` : echo;
    parts.push(
      short
        ? `You asked: "${short}". I can't answer that offline, but here is what I can do.`
        : "I can only read text, but here is what I can do.",
    );
  }
  parts.push(INTRO, capabilities(tools), CONFIGURE);
  return parts.join("\n\n");
}
