import { describe, expect, it } from "vitest";
import { collect, harness, say } from "../../../test/support/session-harness.js";

// Issue #27 case 3: a file and the question typed with it are one user message, and the model
// answers them in one request that holds both (before, each file was a turn of its own).

const b64 = (text: string) => Buffer.from(text).toString("base64");

describe("a text with its attached files", () => {
  it("is one stored user message and one model request with the files before the question", async () => {
    const h = harness([say("The notes say to fix the parser.")]);
    const session = await h.manager.create({});
    await collect(
      session.sendMessage({
        type: "text",
        text: "what do the notes say?",
        attachments: [
          { name: "notes.md", mime_type: "text/markdown", data: b64("fix the parser") },
        ],
      }),
    );
    const stored = session.messages().messages;
    expect(stored.map((m) => [m.role, m.body.message_type])).toEqual([
      ["user", "text"],
      ["assistant", "text"],
    ]);
    expect(stored[0]?.body).toMatchObject({
      text: "what do the notes say?",
      attachments: [
        {
          name: "notes.md",
          mime_type: "text/markdown",
          size: 14,
          content: [{ text: "fix the parser" }],
        },
      ],
    });
    expect(h.provider.requests).toHaveLength(1);
    const users = h.provider.requests[0]?.messages.filter((m) => m.role === "user") ?? [];
    expect(users).toHaveLength(1);
    expect(users[0]?.content).toEqual([
      { type: "text", text: "Attached file notes.md (text/markdown, 14 bytes):" },
      { type: "text", text: "fix the parser" },
      { type: "text", text: "what do the notes say?" },
    ]);
  });

  it("refuses a zip among the files and stores nothing", async () => {
    const h = harness([say("never")]);
    const session = await h.manager.create({});
    const events = await collect(
      session.sendMessage({
        type: "text",
        text: "read it",
        attachments: [{ name: "a.zip", mime_type: "", data: b64("PK\u0003\u0004a.txt") }],
      }),
    );
    expect(events.find((e) => e.name === "error")?.payload).toMatchObject({
      code: "invalid_request",
      message: expect.stringMatching(/zip archive cannot be attached/),
    });
    expect(session.messages().messages).toEqual([]);
    expect(h.provider.requests).toHaveLength(0);
  });
});
