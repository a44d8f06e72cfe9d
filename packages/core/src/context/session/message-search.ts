import type { ContextMessage, MessageBody } from "../../model/message-types.js";

// Full-text search over a session's messages: a message matches when its readable text holds
// every word of the query, case-insensitively. Plain scanning: sessions hold thousands of
// messages, not millions, and the pool is in memory once the session is loaded.

export interface MessageMatch {
  message: ContextMessage;
  /** the text around the first match, on one line */
  snippet: string;
}

/** The query's words, lower-cased; empty for a blank query. */
export function searchWords(query: string): string[] {
  return query.toLowerCase().split(/\s+/).filter(Boolean);
}

/** What a reader sees of a message, as one text to search. */
export function searchableText(body: MessageBody): string {
  switch (body.message_type) {
    case "text":
      return body.text;
    case "file_reference":
      return [body.path, body.display_text ?? ""].join(" ");
    case "tool_request":
      return [body.text, ...body.calls.map((c) => `${c.name} ${JSON.stringify(c.arguments)}`)].join(
        "\n",
      );
    case "tool_result":
      return [
        body.tool_name,
        ...body.content.flatMap((b) => (b.type === "text" ? [b.text] : [])),
      ].join("\n");
    case "mcp_resource":
      return [body.server_name, body.resource_uri].join(" ");
    case "attachment":
      return [
        body.name,
        ...body.content.flatMap((block) => (block.type === "text" ? [block.text] : [])),
      ].join("\n");
    case "system_control":
      return body.text;
    case "plan":
      return body.steps.map((step) => step.title).join("\n");
    case "question":
      return body.question;
    default:
      return body satisfies never;
  }
}

const SNIPPET_RADIUS = 60;

function snippetAt(text: string, at: number, length: number): string {
  const start = Math.max(0, at - SNIPPET_RADIUS);
  const end = Math.min(text.length, at + length + SNIPPET_RADIUS);
  const middle = text.slice(start, end).replace(/\s+/g, " ").trim();
  return `${start > 0 ? "…" : ""}${middle}${end < text.length ? "…" : ""}`;
}

/** The messages holding every word, in the order given. */
export function searchMessages(
  messages: Iterable<ContextMessage>,
  words: readonly string[],
): MessageMatch[] {
  if (words.length === 0) return [];
  const matches: MessageMatch[] = [];
  for (const message of messages) {
    const text = searchableText(message.body);
    const lower = text.toLowerCase();
    if (!words.every((word) => lower.includes(word))) continue;
    const first = words[0] ?? "";
    matches.push({ message, snippet: snippetAt(text, lower.indexOf(first), first.length) });
  }
  return matches;
}
