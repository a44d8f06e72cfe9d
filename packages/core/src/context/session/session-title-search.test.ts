import { describe, expect, it } from "vitest";
import { collect, harness, say } from "../../../test/support/session-harness.js";
import { InMemorySessionStore } from "../../store/memory-store.js";
import { searchMessages, searchWords } from "./message-search.js";

// Renaming a session and searching the messages of every session (issue #18).

describe("rename", () => {
  it("stores the new title, trimmed, and a reload sees it", async () => {
    const store = new InMemorySessionStore();
    const h = harness([say("Hello.")], { store });
    const session = await h.manager.create();
    await collect(session.sendMessage({ type: "text", text: "hi there" }));
    expect(session.title).toBe("Hi there");
    const events = await collect(session.rename("  Greetings  "));
    expect(events.filter((e) => e.name === "error")).toEqual([]);
    expect(session.title).toBe("Greetings");
    expect((await h.manager.list()).find((s) => s.id === session.id)?.title).toBe("Greetings");
    const reloaded = await harness([], { store }).manager.get(session.id);
    expect(reloaded?.title).toBe("Greetings");
  });

  it("refuses an empty title", async () => {
    const h = harness([]);
    const session = await h.manager.create({ title: "Kept" });
    const events = await collect(session.rename("   "));
    expect(events.find((e) => e.name === "error")?.payload).toMatchObject({
      code: "invalid_request",
    });
    expect(session.title).toBe("Kept");
  });
});

describe("search", () => {
  it("finds messages holding every word, across sessions, newest first, with a snippet", async () => {
    const h = harness([say("The parser lives in src/parse.ts."), say("Nothing about that.")]);
    const a = await h.manager.create({ title: "A" });
    await collect(a.sendMessage({ type: "text", text: "Where is the Parser?" }));
    const b = await h.manager.create({ title: "B" });
    await collect(b.sendMessage({ type: "text", text: "tell me about the weather" }));

    const hits = await h.manager.search("PARSER the", 10);
    expect(hits.map((hit) => [hit.session_title, hit.message.role])).toEqual([
      ["A", "assistant"],
      ["A", "user"],
    ]);
    expect(hits[0]?.snippet).toBe("The parser lives in src/parse.ts.");
    expect(await h.manager.search("weather", 10)).toHaveLength(1);
    expect(await h.manager.search("parser weather", 10)).toEqual([]);
    expect(await h.manager.search("   ", 10)).toEqual([]);
    expect(await h.manager.search("the", 1)).toHaveLength(1);
  });

  it("cuts a long text to the words around the first match", () => {
    const long = `${"a ".repeat(100)}needle${" b".repeat(100)}`;
    const [hit] = searchMessages(
      [
        {
          id: "m1",
          session_id: "s",
          role: "user",
          status: "complete",
          created_at: "2026-01-01T00:00:00.000Z",
          body: { message_type: "text", text: long },
        },
      ],
      searchWords("Needle"),
    );
    expect(hit?.snippet.startsWith("…")).toBe(true);
    expect(hit?.snippet.endsWith("…")).toBe(true);
    expect(hit?.snippet).toContain("needle");
    expect(hit?.snippet.length).toBeLessThan(140);
  });
});
