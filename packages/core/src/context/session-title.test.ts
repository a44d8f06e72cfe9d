import { describe, expect, it, vi } from "vitest";
import { collect, harness, say, silent } from "../../test/support/session-harness.js";
import { modelConfig } from "../model/llm-config.js";
import { shortTitle, TITLE_CHARS } from "./session-title.js";

// Session titles (issue #18): a short one from the first message at once, then the model's.

describe("shortTitle", () => {
  it("takes the first sentence or line, without filler, capitalised, cut at a word", () => {
    expect(shortTitle("fix the bug\nin main.ts")).toBe("Fix the bug");
    expect(shortTitle("Hi, can you please list the files? Then read them.")).toBe("List the files");
    expect(shortTitle("hi there")).toBe("Hi there");
    expect(shortTitle("   ")).toBeUndefined();
    const long = shortTitle(`Refactor the parser ${"so that it handles ".repeat(10)}`) ?? "";
    expect(long.length).toBeLessThanOrEqual(TITLE_CHARS + 1);
    expect(long).toMatch(/^Refactor the parser so that .*[a-z]…$/);
  });
});

const realModel = modelConfig({ protocol: "anthropic-messages", model: "claude-test" });

describe("the model's title after the first answer", () => {
  it("replaces the title from the first message, once, off the answer's path", async () => {
    const h = harness([say("Use a Pratt parser."), say('"Parser rewrite plan."'), say("Sure.")], {
      model: realModel,
    });
    const session = await h.manager.create();
    await collect(session.sendMessage({ type: "text", text: "how do I rewrite my parser?" }));
    await vi.waitFor(() => expect(session.title).toBe("Parser rewrite plan"));
    const titleRequest = h.provider.requests[1];
    expect(titleRequest?.tools).toEqual([]);
    expect(JSON.stringify(titleRequest?.messages)).toContain("how do I rewrite my parser?");
    await collect(session.sendMessage({ type: "text", text: "thanks" }));
    expect(h.provider.requests).toHaveLength(3);
    expect(session.title).toBe("Parser rewrite plan");
  });

  it("keeps a title the user gave, and the offline model asks nothing", async () => {
    const named = harness([say("Answer."), say("Model title")], { model: realModel });
    const mine = await named.manager.create({ title: "My own" });
    await collect(mine.sendMessage({ type: "text", text: "question" }));
    expect(named.provider.requests).toHaveLength(1);
    expect(mine.title).toBe("My own");

    const offline = harness([say("Answer.")]);
    const session = await offline.manager.create();
    await collect(session.sendMessage({ type: "text", text: "question" }));
    expect(offline.provider.requests).toHaveLength(1);
    expect(session.title).toBe("Question");
  });

  it("a failing title request leaves the title from the first message and is logged", async () => {
    const h = harness([say("Answer.")], { model: realModel });
    const session = await h.manager.create();
    await collect(session.sendMessage({ type: "text", text: "question" }));
    await vi.waitFor(() =>
      expect(silent.entries.map((e) => e.message)).toContain("the model did not title the session"),
    );
    expect(session.title).toBe("Question");
  });
});
