import { describe, expect, it } from "vitest";
import { text } from "../test-support/messages.js";
import { messageExcerpt, messagePreview, nameMessagesIn, plainMarkdown } from "./preview.js";

describe("message previews", () => {
  it("drops markdown marks from one-line previews", () => {
    expect(plainMarkdown("## Title\n- **bold** and `code` in [a link](http://x)")).toBe(
      "Title\nbold and code in a link",
    );
    expect(messagePreview(text("read `snake_case_name`, __really__"))).toBe(
      "read snake_case_name, really",
    );
  });

  it("keeps line breaks in excerpts and cuts long ones at a word end", () => {
    expect(messageExcerpt(text("a\n\n- b"))).toBe("a\n\n- b");
    const long = messageExcerpt(text(`${"word ".repeat(200)}`), 50);
    expect(long.length).toBeLessThanOrEqual(52);
    expect(long.endsWith("word …")).toBe(true);
  });

  it("names messages by what they say instead of their ids", () => {
    const byId = new Map([
      ["msg_1", text("hello **there**", { id: "msg_1" })],
      ["msg_2", text("x".repeat(100), { id: "msg_2" })],
    ]);
    expect(nameMessagesIn("msg_1 and msg_2, not msg_3", byId, 10)).toBe(
      `“hello the…” and “${"x".repeat(9)}…”, not msg_3`,
    );
  });
});
