import type { ContextMessage } from "@arbor/core/browser";
import { unreachable } from "../state-label.js";
import { fileReferenceLabel } from "./file-reference-card.js";

/** One line that names a message: for lists, merge checkboxes and side-by-side conflicts. */
export function messagePreview(message: ContextMessage, maxLength = 120): string {
  return clip(plainMarkdown(previewText(message)), maxLength);
}

/** Markdown's commonest marks dropped, so a one-line preview reads as prose. */
export function plainMarkdown(text: string): string {
  return text
    .replace(/```[^\n]*\n?/g, "")
    .replace(/`([^`\n]+)`/g, "$1")
    .replace(/(\*\*|__)(\S(?:.*?\S)?)\1/g, "$2")
    .replace(/!?\[([^\]\n]*)\]\([^)\n]*\)/g, "$1")
    .replace(/^\s{0,3}(?:#{1,6}|>|[-*+]|\d+\.)\s+/gm, "");
}

/**
 * A message's text with its line breaks kept, cut near maxLength at a line or word end: for
 * previews rendered as markdown (the conflict dialog), where one squeezed line would show raw
 * markup.
 */
export function messageExcerpt(message: ContextMessage, maxLength = 400): string {
  const text = previewText(message).trim();
  if (text.length <= maxLength) return text;
  const cut = text.slice(0, maxLength);
  const end = Math.max(cut.lastIndexOf("\n"), cut.lastIndexOf(" "));
  return `${cut.slice(0, end > maxLength / 2 ? end : maxLength).trimEnd()} …`;
}

/**
 * Core's merge descriptions name messages by id; a person reads them better by what they say.
 * Every known id in the text becomes a short quoted preview.
 */
export function nameMessagesIn(
  text: string,
  byId: ReadonlyMap<string, ContextMessage>,
  maxLength = 48,
): string {
  let out = text;
  for (const [id, message] of byId) {
    if (id === "" || !out.includes(id)) continue;
    out = out.split(id).join(`“${messagePreview(message, maxLength)}”`);
  }
  return out;
}

function previewText({ body }: ContextMessage): string {
  switch (body.message_type) {
    case "text":
      return body.text;
    case "file_reference":
      return `📄 ${fileReferenceLabel(body)}`;
    case "tool_request": {
      const calls = body.calls.map((c) => c.name).join(", ");
      return body.text === "" ? `Calls ${calls}` : `${body.text} · calls ${calls}`;
    }
    case "tool_result":
      return `${body.tool_name} → ${body.status}`;
    case "mcp_resource":
      return `${body.server_name}: ${body.resource_uri}`;
    case "attachment":
      return `Attached: ${body.name}`;
    case "system_control":
      return body.text;
    case "plan":
      return `Plan: ${body.steps.map((s) => s.title).join("; ")}`;
    case "question":
      return `Question: ${body.question}`;
    default:
      return unreachable(body);
  }
}

function clip(text: string, maxLength: number): string {
  const oneLine = text.replace(/\s+/g, " ").trim();
  return oneLine.length <= maxLength ? oneLine : `${oneLine.slice(0, maxLength - 1)}…`;
}
