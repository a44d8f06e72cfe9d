import { render, screen, within } from "@testing-library/react";
import { userEvent } from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import { text } from "../test-support/messages.js";
import { MessageCard } from "./message-card.js";

const usage = { input: 1200, output: 300, cacheRead: 4000, cacheWrite: 500, totalTokens: 6000 };

describe("an answer's details", () => {
  it("shows the model, the tokens with cache reads and writes apart, and the cost", async () => {
    const user = userEvent.setup();
    render(
      <MessageCard
        message={text("Hi", {
          meta: {
            model: "claude-sonnet-4-5",
            usage: { ...usage, cost_usd: 0.0042, cost_complete: true },
          },
        })}
      />,
    );
    const details = screen.getByTestId("answer-details");
    await user.click(within(details).getByText("Details"));
    expect(details.textContent).toContain("claude-sonnet-4-5");
    expect(details.textContent).toContain(
      "1,200 in · 300 out · 4,000 cache read · 500 cache write",
    );
    expect(within(details).getByTestId("answer-cost").textContent).toBe("$0.0042");
  });

  it('says "no price for this model" for a model without one, never $0.00', () => {
    render(
      <MessageCard
        message={text("Hi", {
          meta: { model: "local-llama", usage: { ...usage, cost_usd: null, cost_complete: false } },
        })}
      />,
    );
    expect(screen.getByTestId("answer-cost").textContent).toBe("no price for this model");
  });

  it("is not shown for a user's message, an answer still streaming, or one without usage", () => {
    const { rerender } = render(
      <MessageCard message={text("Q", { role: "user", meta: { usage } })} />,
    );
    expect(screen.queryByTestId("answer-details")).toBeNull();
    rerender(<MessageCard message={text("", { status: "streaming", meta: { usage } })} />);
    expect(screen.queryByTestId("answer-details")).toBeNull();
    rerender(<MessageCard message={text("A")} />);
    expect(screen.queryByTestId("answer-details")).toBeNull();
  });
});
