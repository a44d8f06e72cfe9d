import { mcpResourceImage } from "../../mcp/resource-message.js";
import type { BodyOf, ContextMessage } from "../../model/message-types.js";

// How a ContextMessage reads to the model, as plain text. Optimization counts tokens and builds
// summaries from this text; it is NOT the wire conversion to the runtime's AgentMessages (the
// Session owns that), but it must carry the same information so the counts stay close.

/** Each tool call's arguments are shown as JSON; this keeps a huge argument from dominating a summary prompt. */
function callText(name: string, args: Record<string, unknown>): string {
  return `${name}(${JSON.stringify(args)})`;
}

function lineRange(start: number, end: number): string {
  return start === end ? `line ${start}` : `lines ${start}-${end}`;
}

/** The line that names an MCP resource's origin before its content. */
export function mcpResourceHeader(body: BodyOf<"mcp_resource">): string {
  return `Resource ${body.resource_uri} from ${body.server_name} (${body.mime_type})`;
}

/**
 * The text the model sees for one message: text bodies as they are, file references with a path
 * header (resolved content when present), tool requests as prose + `name(args)` per call, tool
 * results with their tool name and status, MCP resources with their origin, plans as numbered
 * steps, questions with their choices, summaries and notices as their text. Images in tool
 * results appear as `[image <mime>]`; their token cost is counted separately (request-tokens.ts).
 */
export function toModelText(message: ContextMessage): string {
  const body = message.body;
  switch (body.message_type) {
    case "text":
      return body.text;
    case "file_reference": {
      const resolved = body.resolved;
      if (!resolved) {
        const range = body.range
          ? ` (${lineRange(body.range.start_line, body.range.end_line)})`
          : "";
        return `[file ${body.path}${range}, not resolved]`;
      }
      const note = resolved.truncated ? `, truncated, ${resolved.total_lines} lines in total` : "";
      return `File: ${body.path} (${lineRange(resolved.start_line, resolved.end_line)}${note})\n${resolved.content}`;
    }
    case "tool_request": {
      const parts: string[] = [];
      for (const block of body.thinking) if (block.thinking) parts.push(block.thinking);
      if (body.text) parts.push(body.text);
      for (const call of body.calls) parts.push(`→ ${callText(call.name, call.arguments)}`);
      return parts.join("\n");
    }
    case "tool_result": {
      const parts = [`[${body.tool_name} result: ${body.status}]`];
      for (const block of body.content) {
        parts.push(block.type === "text" ? block.text : `[image ${block.mimeType}]`);
      }
      return parts.join("\n");
    }
    case "mcp_resource":
      // an image resource reaches the model as an image block (its tokens counted separately)
      return mcpResourceImage(body) === undefined
        ? `${mcpResourceHeader(body)}\n${body.content}`
        : `${mcpResourceHeader(body)}\n[image ${body.mime_type}]`;
    case "attachment":
      return [
        `Attached file ${body.name} (${body.mime_type}, ${body.size} bytes)`,
        ...body.content.map((block) =>
          block.type === "text" ? block.text : `[image ${block.mimeType}]`,
        ),
      ].join("\n");
    case "system_control":
      return body.kind === "summary"
        ? `[Summary of ${body.replaces?.length ?? 0} earlier messages]\n${body.text}`
        : body.text;
    case "plan": {
      const steps = body.steps.map(
        (step, i) => `${i + 1}. ${step.title}${step.detail ? ` — ${step.detail}` : ""}`,
      );
      return [`Plan: ${body.summary}`, ...steps].join("\n");
    }
    case "question": {
      const choices = body.choices.length > 0 ? `\nChoices: ${body.choices.join(" | ")}` : "";
      return `Question: ${body.question}${choices}`;
    }
    default:
      return body satisfies never;
  }
}

/** True for the summary messages optimization creates. */
export function isSummary(message: ContextMessage): boolean {
  return message.body.message_type === "system_control" && message.body.kind === "summary";
}
