import type { AgentMessage, UserMessage } from "../model/llm-messages.js";
import { errorText } from "./hook-calls.js";
import type { InputFilter, Logger } from "./types.js";

// REQ-068–070: the input filter chain, run once on the prompts of an origin call.

export type FilterVerdict =
  | { type: "accept"; messages: AgentMessage[] }
  | { type: "reject"; reason: string };

/**
 * Joins the text of the prompts' user messages and runs each filter in order. The first reject
 * wins; warnings accumulate and are appended, as "[Warning: …]" text blocks, to (a copy of) the
 * last user message. A filter that throws is logged and counts as pass.
 */
export function applyInputFilters(
  prompts: AgentMessage[],
  filters: readonly InputFilter[],
  logger: Logger,
): FilterVerdict {
  if (filters.length === 0 || prompts.length === 0) return { type: "accept", messages: prompts };
  const text = prompts
    .flatMap((m) => (m.role === "user" ? m.content : []))
    .flatMap((block) => (block.type === "text" ? [block.text] : []))
    .join("\n");
  const warnings: string[] = [];
  for (const filter of filters) {
    let result: ReturnType<InputFilter["filter"]>;
    try {
      result = filter.filter(text);
    } catch (error) {
      logger.warn("input filter threw; treating it as pass", {
        filter: filter.name,
        error: errorText(error),
      });
      continue;
    }
    switch (result.action) {
      case "pass":
        break;
      case "warn":
        warnings.push(result.message);
        break;
      case "reject":
        return { type: "reject", reason: result.reason };
      default:
        result satisfies never;
    }
  }
  if (warnings.length === 0) return { type: "accept", messages: prompts };
  const lastUser = prompts.findLastIndex((m) => m.role === "user");
  if (lastUser < 0) return { type: "accept", messages: prompts };
  const messages = [...prompts];
  const original = messages[lastUser] as UserMessage;
  messages[lastUser] = {
    ...original,
    content: [
      ...original.content,
      ...warnings.map((w) => ({ type: "text" as const, text: `[Warning: ${w}]` })),
    ],
  };
  return { type: "accept", messages };
}
