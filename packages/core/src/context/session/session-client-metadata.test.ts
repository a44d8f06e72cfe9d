import { describe, expect, it } from "vitest";
import { collect, harness, say } from "../../../test/support/session-harness.js";
import { InMemorySessionStore } from "../../store/memory-store.js";

// client_metadata (issue #9 finding 11): stored with the user's message, returned on it, never
// sent to the model.

describe("client_metadata", () => {
  it("is stored on the user's message, survives a reload, and never reaches the model", async () => {
    const store = new InMemorySessionStore();
    const h = harness([say("Hello.")], { store });
    const session = await h.manager.create();
    const clientMetadata = { draft_id: "draft-7", marker: "CLIENT-ONLY-MARKER" };
    await collect(session.sendMessage({ type: "text", text: "hi" }, { clientMetadata }));
    const [user, answer] = session.messages().messages;
    expect(user).toMatchObject({ role: "user", client_metadata: clientMetadata });
    expect(answer?.client_metadata).toBeUndefined();
    expect(JSON.stringify(h.provider.requests)).not.toContain("CLIENT-ONLY-MARKER");
    const reloaded = await harness([], { store }).manager.get(session.id);
    expect(reloaded?.messages().messages[0]?.client_metadata).toEqual(clientMetadata);
  });

  it("a message without it has none", async () => {
    const h = harness([say("Hello.")]);
    const session = await h.manager.create();
    await collect(session.sendMessage({ type: "text", text: "hi" }));
    expect(session.messages().messages[0]).not.toHaveProperty("client_metadata");
  });
});
