import { render, screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { budgetText, fixedText, UsageMeter, usageLevel } from "./usage-meter.js";

describe("UsageMeter", () => {
  it("warns at 75% and 90%", () => {
    expect(usageLevel(74_999, 100_000)).toBe("normal");
    expect(usageLevel(75_000, 100_000)).toBe("warning");
    expect(usageLevel(89_999, 100_000)).toBe("warning");
    expect(usageLevel(90_000, 100_000)).toBe("critical");
    expect(usageLevel(10, 0)).toBe("critical");
  });

  it("shows what is left of the person's monthly budget when they have one", () => {
    const { rerender } = render(
      <UsageMeter
        used={1_000}
        limit={100_000}
        budget={{ monthly_tokens: 100_000, used_tokens: 12_000 }}
      />,
    );
    const left = screen.getByTestId("budget-left");
    expect(left.textContent).toBe("· 88k of 100k monthly tokens left");
    expect(left.dataset.level).toBe("normal");
    rerender(
      <UsageMeter
        used={1_000}
        limit={100_000}
        budget={{ monthly_tokens: 100_000, used_tokens: 100_213 }}
      />,
    );
    expect(screen.getByTestId("budget-left").textContent).toBe(
      "· monthly budget of 100k tokens used up",
    );
    expect(screen.getByTestId("budget-left").dataset.level).toBe("critical");
    rerender(
      <UsageMeter used={1_000} limit={100_000} budget={{ monthly_tokens: null, used_tokens: 5 }} />,
    );
    expect(screen.queryByTestId("budget-left")).toBeNull();
    expect(budgetText({ monthly_tokens: 1_000, used_tokens: 999 })).toBe(
      "1 of 1k monthly tokens left",
    );
  });

  it("exposes a meter with its value and level", () => {
    const { rerender } = render(<UsageMeter used={50_000} limit={100_000} />);
    const meter = screen.getByRole("meter", { name: "Context usage" });
    expect(meter.getAttribute("aria-valuenow")).toBe("50000");
    expect(meter.getAttribute("aria-valuemax")).toBe("100000");
    expect(meter.dataset.level).toBe("normal");
    rerender(<UsageMeter used={80_000} limit={100_000} />);
    expect(meter.dataset.level).toBe("warning");
    rerender(<UsageMeter used={95_000} limit={100_000} />);
    expect(meter.dataset.level).toBe("critical");
    expect(meter.getAttribute("aria-valuetext")).toBe("95k / 100k tokens (95%)");
  });

  it("shows the fixed part (system prompt and tool definitions) as the bar's first segment", () => {
    expect(fixedText({ systemPrompt: 242, tools: 1_468 })).toBe(
      "1.7k in every request (instructions 242 + tool descriptions 1.5k)",
    );
    render(<UsageMeter used={8_000} limit={20_000} fixed={{ systemPrompt: 242, tools: 1_468 }} />);
    const meter = screen.getByRole("meter", { name: "Context usage" });
    expect(meter.getAttribute("aria-valuetext")).toBe(
      "8k / 20k tokens (40%), 1.7k in every request (instructions 242 + tool descriptions 1.5k)",
    );
    // 1,710 of the 8,000 used: about 21% of the filled bar
    const segment = screen.getByTestId("fixed-overhead");
    expect(Number.parseFloat(segment.style.width)).toBeCloseTo(21.4, 0);
  });

  it("shows what the session spent, or that its model has no price", () => {
    const { rerender } = render(
      <UsageMeter used={1_000} limit={100_000} cost={{ cost_usd: 0.0042, cost_complete: true }} />,
    );
    expect(screen.getByTestId("meter-cost").textContent).toBe("· $0.0042 spent");
    rerender(
      <UsageMeter used={1_000} limit={100_000} cost={{ cost_usd: null, cost_complete: false }} />,
    );
    expect(screen.getByTestId("meter-cost").textContent).toBe("· no price for this model");
    rerender(
      <UsageMeter used={1_000} limit={100_000} cost={{ cost_usd: 0.00003, cost_complete: true }} />,
    );
    expect(screen.getByTestId("meter-cost").textContent).toBe("· <$0.0001 spent");
    rerender(<UsageMeter used={1_000} limit={100_000} />);
    expect(screen.queryByTestId("meter-cost")).toBeNull();
  });
});
