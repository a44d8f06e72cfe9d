import type { ContextMessage } from "@arbor/core/browser";
import { roleLabel } from "./messages/card-shell.js";
import { messagePreview } from "./messages/preview.js";
import { unreachable } from "./state-label.js";

// A session as a file the user keeps: Markdown to read (one section per message, tool calls
// and results as code blocks) and JSON to keep everything (the detail and every message, as the
// API answers them). Pure functions; the app turns them into downloads.

export type ExportFormat = "markdown" | "json";

/** A fence longer than any run of backticks inside, so code cannot close it early. */
function fenced(text: string, lang = ""): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = "`".repeat(longest + 1);
  return `${fence}${lang}\n${text}\n${fence}`;
}

export function messageMarkdown(message: ContextMessage): string {
  const { body } = message;
  switch (body.message_type) {
    case "text":
      return body.text;
    case "tool_request":
      return [
        body.text,
        ...body.calls.map(
          (call) =>
            `Calls \`${call.name}\` (${call.approval}):\n\n${fenced(JSON.stringify(call.arguments, null, 2), "json")}`,
        ),
      ]
        .filter((part) => part !== "")
        .join("\n\n");
    case "tool_result": {
      const text = body.content
        .map((b) => (b.type === "text" ? b.text : `[image ${b.mimeType}]`))
        .join("\n");
      return `Result of \`${body.tool_name}\` (${body.status}):\n\n${fenced(text)}`;
    }
    case "file_reference":
    case "attachment":
    case "mcp_resource":
    case "system_control":
    case "plan":
    case "question":
      return messagePreview(message, 10_000);
    default:
      return unreachable(body);
  }
}

export function sessionMarkdown(title: string, messages: readonly ContextMessage[]): string {
  const sections = messages.map(
    (m) => `## ${roleLabel(m.role)} · ${m.created_at}\n\n${messageMarkdown(m)}`,
  );
  return `# ${title}\n\n${sections.join("\n\n")}\n`;
}

export function sessionJson(session: unknown, messages: readonly ContextMessage[]): string {
  return `${JSON.stringify({ format: "arbor-session", version: 1, session, messages }, null, 2)}\n`;
}

/** A file name from the title: letters, digits and dashes. */
export function exportFileName(title: string, format: ExportFormat): string {
  const base =
    title
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-|-$/g, "")
      .slice(0, 60) || "session";
  return `${base}.${format === "markdown" ? "md" : "json"}`;
}
