import { render, screen } from "@testing-library/react";
import { userEvent } from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";
import { type ModelOption, ModelPicker } from "./model-picker.js";

const models: ModelOption[] = [
  {
    label: "claude-sonnet-4-5 (anthropic-messages)",
    model: {
      protocol: "anthropic-messages",
      model: "claude-sonnet-4-5",
      thinking_level: "off",
      context_window: 200_000,
    },
  },
  {
    label: "Offline model (no provider needed)",
    model: {
      protocol: "offline",
      model: "arbor-offline",
      thinking_level: "off",
      context_window: 8000,
    },
  },
];

describe("ModelPicker", () => {
  it("shows the app's default model when the session has none, and saves another one when chosen", async () => {
    const onChange = vi.fn();
    render(<ModelPicker models={models} value={undefined} onChange={onChange} />);
    const select = screen.getByLabelText<HTMLSelectElement>("Model");
    expect(select.value).toBe("anthropic-messages:claude-sonnet-4-5");
    await userEvent.setup().selectOptions(select, "Offline model (no provider needed)");
    expect(onChange).toHaveBeenCalledWith(models[1]?.model);
  });

  it("shows a session's model that is not among the options rather than pretending it is another", () => {
    render(
      <ModelPicker
        models={models}
        value={{
          protocol: "openai-chat",
          model: "gpt-4.1",
          thinking_level: "off",
          context_window: 100_000,
        }}
        onChange={() => {}}
      />,
    );
    expect(screen.getByLabelText<HTMLSelectElement>("Model").value).toBe("openai-chat:gpt-4.1");
    expect(screen.getByRole("option", { name: "gpt-4.1 (openai-chat)" })).toBeTruthy();
  });
});
