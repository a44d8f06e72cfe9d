import { describe, expect, it } from "vitest";
import { collect, harness, say, stateData } from "../../../test/support/session-harness.js";

// Context Manager "Auto-loop state tracking" (issue #26 finding 10): ToolAutoLoop carries the
// names of the tools the auto-loop ran so far, besides its depth and count.

describe("ToolAutoLoop", () => {
  it("names the tools run so far, each once, in the order they first ran", async () => {
    const h = harness([
      {
        blocks: [
          { type: "toolCall" as const, id: "a", name: "echo", arguments: { text: "1" } },
          { type: "toolCall" as const, id: "b", name: "write_note", arguments: { text: "2" } },
        ],
      },
      { blocks: [{ type: "toolCall" as const, id: "c", name: "echo", arguments: { text: "3" } }] },
      say("done"),
    ]);
    const session = await h.manager.create({
      config: { approval_policy: { type: "auto_approve_all" } },
    });
    const events = await collect(session.sendMessage({ type: "text", text: "go" }));
    const loops = stateData(events).filter((s) => s.type === "ToolAutoLoop");
    expect(loops).toEqual([
      { type: "ToolAutoLoop", depth: 1, tools_executed: 2, tool_names: ["echo", "write_note"] },
      { type: "ToolAutoLoop", depth: 2, tools_executed: 3, tool_names: ["echo", "write_note"] },
    ]);
  });
});
