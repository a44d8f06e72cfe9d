import { describe, expect, it } from "vitest";
import { collect, errors, harness, say } from "../../../test/support/session-harness.js";

// Context Manager "Role-based tool filtering" (issue #26 finding 10): a session chooses its role.
// Planner: the read-only tools only, in Act mode too, and the Planner's instructions; Actor (the
// app's default): every tool.

const toolNames = (request: { tools: Array<{ name: string }> } | undefined) =>
  request?.tools.map((t) => t.name) ?? [];

describe("the agent role of a session", () => {
  it("a session created as Planner gets only read-only tools in Act mode", async () => {
    const h = harness([say("planned")]);
    const session = await h.manager.create({ config: { agent_role: "planner" } });
    expect(session.config).toMatchObject({ agent_mode: "act", agent_role: "planner" });
    const events = await collect(session.sendMessage({ type: "text", text: "look around" }));
    expect(errors(events)).toEqual([]);
    const [request] = h.provider.requests;
    expect(toolNames(request)).toContain("echo");
    expect(toolNames(request)).not.toContain("write_note");
    expect(request?.systemPrompt).toContain("Role: Planner");
  });

  it("the role is changed at once by the config and kept across a reload", async () => {
    const h = harness([say("one"), say("two"), say("three")]);
    const session = await h.manager.create();
    await collect(session.sendMessage({ type: "text", text: "first" }));
    expect(toolNames(h.provider.requests[0])).toContain("write_note");
    await collect(session.updateConfig({ agent_role: "planner" }));
    await collect(session.sendMessage({ type: "text", text: "second" }));
    expect(toolNames(h.provider.requests[1])).not.toContain("write_note");

    const again = harness([say("after")], { store: h.store });
    const reloaded = await again.manager.get(session.id);
    expect(reloaded?.config.agent_role).toBe("planner");
    await collect(reloaded!.updateConfig({ agent_role: "actor" }));
    await collect(reloaded!.sendMessage({ type: "text", text: "third" }));
    expect(toolNames(again.provider.requests[0])).toContain("write_note");
  });
});
