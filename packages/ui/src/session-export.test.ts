import { describe, expect, it } from "vitest";
import { exportFileName, sessionJson, sessionMarkdown } from "./session-export.js";
import { msg, text } from "./test-support/messages.js";

describe("session export", () => {
  const messages = [
    text("list the files", { role: "user", created_at: "2026-01-01T00:00:00.000Z" }),
    msg(
      {
        message_type: "tool_request",
        text: "Let me look.",
        thinking: [],
        calls: [{ id: "c1", name: "list_files", arguments: { path: "." }, approval: "approved" }],
      },
      { created_at: "2026-01-01T00:00:01.000Z" },
    ),
    msg(
      {
        message_type: "tool_result",
        request_id: "r",
        tool_call_id: "c1",
        tool_name: "list_files",
        content: [{ type: "text", text: "a.md\n```\nb.ts" }],
        status: "success",
      },
      { role: "tool", created_at: "2026-01-01T00:00:02.000Z" },
    ),
  ];

  it("writes Markdown with one section per message and safe fences", () => {
    const md = sessionMarkdown("Files", messages);
    expect(md.startsWith("# Files\n\n## You · 2026-01-01T00:00:00.000Z\n\nlist the files")).toBe(
      true,
    );
    expect(md).toContain('Calls `list_files` (approved):\n\n```json\n{\n  "path": "."\n}\n```');
    // the result holds a fence of three backticks, so its own fence has four
    expect(md).toContain("Result of `list_files` (success):\n\n````\na.md\n```\nb.ts\n````");
  });

  it("writes JSON that parses back to the session and every message", () => {
    const parsed = JSON.parse(sessionJson({ id: "s1", title: "Files" }, messages));
    expect(parsed.format).toBe("arbor-session");
    expect(parsed.session.title).toBe("Files");
    expect(parsed.messages).toHaveLength(3);
  });

  it("names the file after the title", () => {
    expect(exportFileName("Fix: the parser!", "markdown")).toBe("fix-the-parser.md");
    expect(exportFileName("???", "json")).toBe("session.json");
  });
});
