import type { ContextMessage, OptimizationView } from "@arbor/core/browser";
import { render, screen } from "@testing-library/react";
import { userEvent } from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import { OptimizationDivider, optimizationLabel, summaryLines } from "./optimization-divider.js";
import { text } from "./test-support/messages.js";

const view: OptimizationView = {
  id: "opt1",
  session_id: "s1",
  branch_id: "b1",
  created_at: "2025-06-10T12:00:00Z",
  strategy: "intelligent",
  tokens_before: 120_000,
  tokens_after: 18_000,
  messages_before: 84,
  messages_after: 6,
  summaries: [{ summary_message_id: "sum", replaces: ["m1", "m2"] }],
  dropped: [],
};

describe("OptimizationDivider", () => {
  it("states the savings and expands to the original messages", async () => {
    const user = userEvent.setup();
    expect(optimizationLabel(view)).toBe("History optimized · 120k → 18k tokens · 84 → 6 messages");
    render(
      <OptimizationDivider
        view={view}
        originalMessages={[text("old question", { role: "user" }), text("old answer")]}
      />,
    );
    const toggle = screen.getByRole("button", { name: /History optimized · 120k → 18k tokens/ });
    expect(screen.queryByText("old answer")).toBeNull();
    await user.click(toggle);
    expect(toggle.getAttribute("aria-expanded")).toBe("true");
    expect(screen.getByText("old question")).toBeDefined();
    expect(screen.getByText("old answer")).toBeDefined();
  });

  it("names the summarizer of each summary, what it replaced, and the masked outputs", () => {
    const summary = (data: Record<string, unknown>): ContextMessage => ({
      id: `s${JSON.stringify(data).length}`,
      session_id: "s1",
      role: "system",
      status: "complete",
      created_at: "2025-06-10T12:00:00Z",
      body: { message_type: "system_control", kind: "summary", text: "…", replaces: [], data },
    });
    const mask: ContextMessage = {
      id: "mask",
      session_id: "s1",
      role: "tool",
      status: "complete",
      created_at: "2025-06-10T12:00:00Z",
      body: {
        message_type: "tool_result",
        request_id: "r",
        tool_call_id: "c",
        tool_name: "read_file",
        status: "success",
        content: [{ type: "text", text: "[Output masked to save context: …]" }],
      },
    };
    const messages = [
      summary({
        summarizer: "llm",
        model: "anthropic-messages/claude-haiku",
        replaced_messages: 32,
        replaced_tokens: 4_100,
      }),
      summary({
        summarizer: "extractive",
        fallback_reason: "LLM summarization failed (server): overloaded",
        replaced_messages: 1,
        replaced_tokens: 120,
      }),
      mask,
    ];
    expect(summaryLines(messages)).toEqual([
      "Summary by anthropic-messages/claude-haiku · replaced 32 messages, 4.1k tokens",
      "Summary by the extractive summarizer (the model's summary failed: LLM summarization failed (server): overloaded) · replaced 1 message, 120 tokens",
      "1 old tool output masked (the calls stay; the model calls again to see them)",
    ]);
    render(<OptimizationDivider view={view} newMessages={messages} originalMessages={[]} />);
    const how = screen.getByRole("list", { name: "How it was optimized" });
    expect(how.textContent).toContain("Summary by anthropic-messages/claude-haiku");
  });

  it("shows the summary's text: what the model reads instead of the originals", () => {
    const summary: ContextMessage = {
      id: "sum",
      session_id: "s1",
      role: "system",
      status: "complete",
      created_at: "2025-06-10T12:00:00Z",
      body: {
        message_type: "system_control",
        kind: "summary",
        text: "The vault codes are garnet-1014 and garnet-1024.",
        replaces: ["m1", "m2"],
        data: { summarizer: "llm", model: "anthropic-messages/claude-e2e", replaced_messages: 2 },
      },
    };
    render(<OptimizationDivider view={view} newMessages={[summary]} originalMessages={[]} />);
    const shown = screen.getByRole("figure", { name: "Summary the model reads" });
    expect(shown.textContent).toContain("The vault codes are garnet-1014 and garnet-1024.");
  });

  it("over the full history: marks the cut and the summary, without a second copy of the originals", () => {
    const summary: ContextMessage = {
      id: "sum",
      session_id: "s1",
      role: "system",
      status: "complete",
      created_at: "2025-06-10T12:00:00Z",
      body: { message_type: "system_control", kind: "summary", text: "Short.", replaces: [] },
    };
    render(
      <OptimizationDivider
        view={view}
        newMessages={[summary]}
        originalMessages={[text("old answer")]}
        originalsShown
      />,
    );
    expect(screen.queryByRole("button")).toBeNull();
    expect(screen.queryByText("old answer")).toBeNull();
    expect(screen.getByRole("figure", { name: "Summary the model reads" }).textContent).toContain(
      "instead of the messages above",
    );
  });
});
