import type { ContextState, ContextStateType } from "@arbor/core/browser";
import { render, screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { isRunning, stateLabel, stateTone } from "./state-label.js";
import { StateLine, stateLineLabel } from "./state-line.js";

// One sample per state type; the Record type makes the typecheck fail when core adds a state.
const samples: { [T in ContextStateType]: [Extract<ContextState, { type: T }>, string] } = {
  Idle: [{ type: "Idle" }, "Ready"],
  ProcessingUserMessage: [{ type: "ProcessingUserMessage" }, "Processing your message…"],
  ResolvingFileReferences: [{ type: "ResolvingFileReferences", count: 2 }, "Reading 2 files…"],
  EnhancingSystemPrompt: [{ type: "EnhancingSystemPrompt" }, "Preparing the system prompt…"],
  OptimizingContext: [{ type: "OptimizingContext" }, "Optimizing history…"],
  PreparingLLMRequest: [{ type: "PreparingLLMRequest" }, "Preparing the request…"],
  ConnectingToLLM: [{ type: "ConnectingToLLM" }, "Connecting…"],
  AwaitingLLMFirstChunk: [{ type: "AwaitingLLMFirstChunk" }, "Waiting for the first token…"],
  StreamingLLMResponse: [
    { type: "StreamingLLMResponse", chunks: 42, chars: 900 },
    "Streaming · 42 chunks",
  ],
  ProcessingLLMResponse: [{ type: "ProcessingLLMResponse" }, "Processing the response…"],
  ParsingToolCalls: [{ type: "ParsingToolCalls" }, "Reading tool calls…"],
  AwaitingToolApproval: [
    { type: "AwaitingToolApproval", pending_requests: ["m1"], tool_names: ["read_file"] },
    "Waiting for your approval",
  ],
  ExecutingTool: [
    { type: "ExecutingTool", tool_name: "read_file", attempt: 1, index: 2, total: 5 },
    "Executing tool 2/5: read_file",
  ],
  CollectingToolResults: [{ type: "CollectingToolResults" }, "Collecting tool results…"],
  ProcessingToolResults: [{ type: "ProcessingToolResults" }, "Processing tool results…"],
  ToolAutoLoop: [
    { type: "ToolAutoLoop", depth: 2, tools_executed: 5, tool_names: ["read_file"] },
    "Auto-processing · round 2 · 5 tools: read_file",
  ],
  ResearchingPlan: [
    { type: "ResearchingPlan", tool_names: ["read_file", "search"], tools_executed: 2 },
    "Researching the plan: read_file, search",
  ],
  ParsingPlan: [{ type: "ParsingPlan" }, "Drafting the plan…"],
  AwaitingUserAnswer: [
    { type: "AwaitingUserAnswer", question_message_id: "q1" },
    "Waiting for your answer",
  ],
  Interrupting: [{ type: "Interrupting" }, "Stopping…"],
  Paused: [{ type: "Paused", reason: "interrupted" }, "Paused"],
  SwitchingBranch: [{ type: "SwitchingBranch", from: "a", to: "b" }, "Switching branch…"],
  Merging: [{ type: "Merging", strategy: "cherry_pick" }, "Merging (cherry-pick)…"],
  Failed: [{ type: "Failed", error: "provider down", recoverable: true }, "Failed: provider down"],
};

describe("stateLabel", () => {
  for (const [type, [state, label]] of Object.entries(samples)) {
    it(`describes ${type}`, () => {
      expect(stateLabel(state)).toBe(label);
    });
  }

  it("uses singulars and mentions retries and the auto-loop limit", () => {
    expect(stateLabel({ type: "StreamingLLMResponse", chunks: 1, chars: 3 })).toBe(
      "Streaming · 1 chunk",
    );
    expect(stateLabel({ type: "ToolAutoLoop", depth: 1, tools_executed: 1, tool_names: [] })).toBe(
      "Auto-processing · round 1 · 1 tool",
    );
    expect(
      stateLabel({
        type: "ToolAutoLoop",
        depth: 2,
        tools_executed: 3,
        tool_names: ["bash", "grep"],
      }),
    ).toBe("Auto-processing · round 2 · 3 tools: bash, grep");
    expect(
      stateLabel({ type: "ExecutingTool", tool_name: "bash", attempt: 2, index: 1, total: 1 }),
    ).toBe("Executing tool 1/1: bash (attempt 2)");
    expect(stateLabel({ type: "Paused", reason: "auto_loop_limit" })).toBe(
      "Paused · auto-loop limit reached",
    );
  });
});

describe("stateTone and isRunning", () => {
  it("tells working from waiting, paused, failed and idle", () => {
    expect(stateTone({ type: "Idle" })).toBe("idle");
    expect(stateTone(samples.AwaitingToolApproval[0])).toBe("waiting");
    expect(stateTone(samples.Paused[0])).toBe("paused");
    expect(stateTone(samples.Failed[0])).toBe("failed");
    expect(stateTone(samples.StreamingLLMResponse[0])).toBe("working");
    expect(isRunning(samples.StreamingLLMResponse[0])).toBe(true);
    expect(isRunning(samples.Interrupting[0])).toBe(false);
    expect(isRunning(samples.AwaitingToolApproval[0])).toBe(false);
  });
});

describe("StateLine", () => {
  it("shows the operation's context before a passing state, once", () => {
    const { rerender } = render(
      <StateLine
        state={{ type: "AwaitingLLMFirstChunk" }}
        context="Auto-processing · round 2 · 2 tools"
      />,
    );
    const line = screen.getByRole("status", { name: "Session state" });
    expect(line.textContent).toContain("Auto-processing · round 2 · 2 tools ·");
    expect(line.textContent).toContain(stateLabel({ type: "AwaitingLLMFirstChunk" }));
    rerender(
      <StateLine
        state={{ type: "ToolAutoLoop", depth: 2, tools_executed: 2, tool_names: [] }}
        context="Auto-processing · round 2 · 2 tools"
      />,
    );
    expect(line.textContent).toBe("Auto-processing · round 2 · 2 tools");
  });

  it("renders the label in a live status region", () => {
    const { rerender } = render(<StateLine state={samples.ConnectingToLLM[0]} />);
    const status = screen.getByRole("status", { name: "Session state" });
    expect(status).toHaveProperty("textContent", "Connecting…");
    expect(status.dataset.tone).toBe("working");
    rerender(<StateLine state={samples.Failed[0]} />);
    // the error itself has its own place on the page (issue #27): here only its tooltip
    expect(status).toHaveProperty("textContent", "Failed");
    expect(status.getAttribute("title")).toBe("provider down");
    expect(status.dataset.tone).toBe("failed");
  });

  it("says the connection is down instead of a state that may be stale (issue #27)", () => {
    const { rerender } = render(<StateLine state={{ type: "Idle" }} connection="offline" />);
    const status = screen.getByRole("status", { name: "Session state" });
    expect(status).toHaveProperty("textContent", "Offline · trying to reconnect");
    expect(status.dataset.tone).toBe("waiting");
    rerender(<StateLine state={{ type: "Idle" }} connection="reconnecting" />);
    expect(status).toHaveProperty("textContent", "Reconnecting…");
    rerender(<StateLine state={{ type: "Idle" }} />);
    expect(status).toHaveProperty("textContent", "Ready");
    expect(status.dataset.tone).toBe("idle");
  });
});

describe("stateLineLabel (the phone header's summary, issue #27)", () => {
  it("says the connection's words while the stream is down, and a failure without its text", () => {
    expect(stateLineLabel({ type: "Idle" }, "reconnecting")).toBe("Reconnecting…");
    expect(stateLineLabel({ type: "Idle" }, "offline")).toBe("Offline · trying to reconnect");
    expect(stateLineLabel({ type: "Idle" })).toBe("Ready");
    expect(
      stateLineLabel({ type: "Failed", error: "boom", recoverable: true } as ContextState),
    ).toBe("Failed");
  });
});
