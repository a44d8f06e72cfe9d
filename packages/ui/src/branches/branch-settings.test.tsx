import { render, screen } from "@testing-library/react";
import { userEvent } from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";
import { BranchSettings, type BranchSettingsProps, branchPatch } from "./branch-settings.js";

const DEFAULT = ["file_reference", "tool_enhancement", "system_prompt", "optimization"];

function setup(overrides: Partial<BranchSettingsProps> = {}) {
  const user = userEvent.setup();
  const onSave = vi.fn(async () => {});
  const onDelete = vi.fn(async () => {});
  render(
    <BranchSettings
      branch={{ id: "b2", name: "alt" }}
      active={false}
      basePrompt="You are the session's assistant."
      defaultPipeline={DEFAULT}
      onSave={onSave}
      onDelete={onDelete}
      {...overrides}
    />,
  );
  return { user, onSave, onDelete };
}

describe("branchPatch", () => {
  it("only what changed; blank prompt / pipeline clear the override", () => {
    const branch = { id: "b", name: "x", system_prompt: "P", pipeline: { processors: ["a"] } };
    expect(branchPatch(branch, { name: "x", prompt: "P", pipeline: "a" })).toEqual({});
    expect(branchPatch(branch, { name: " y ", prompt: "  ", pipeline: "" })).toEqual({
      name: "y",
      system_prompt: null,
      pipeline: null,
    });
    expect(
      branchPatch({ id: "b", name: "x" }, { name: "x", prompt: "Q", pipeline: "a, b" }),
    ).toEqual({ system_prompt: "Q", pipeline: { processors: ["a", "b"] } });
  });
});

// generous timeouts: dialogs and typing are slow on a loaded machine
describe("BranchSettings", { timeout: 20_000 }, () => {
  it("shows the base prompt as the fallback and the default pipeline; saves a rename and a prompt", async () => {
    const { user, onSave } = setup();
    await user.click(screen.getByRole("button", { name: "Settings of branch alt" }));
    expect(screen.getByLabelText("Base prompt").textContent).toBe(
      "You are the session's assistant.",
    );
    expect(screen.getByLabelText("Message processing steps (comma-separated)")).toHaveProperty(
      "placeholder",
      `Default: ${DEFAULT.join(", ")}`,
    );
    // the steps are explained in words (issue #27: "Pipeline processors" was jargon)
    const steps = screen.getByLabelText("Message processing steps (comma-separated)");
    const help = document.getElementById(steps.getAttribute("aria-describedby") ?? "");
    expect(help?.textContent).toMatch(/What Arbor does to each message before the model gets it/);
    const name = screen.getByLabelText("Name");
    await user.clear(name);
    await user.click(name);
    await user.paste("pirate");
    await user.click(screen.getByLabelText("System prompt of this branch"));
    await user.paste("Talk like a pirate.");
    await user.click(screen.getByRole("button", { name: "Save" }));
    expect(onSave).toHaveBeenCalledWith({ name: "pirate", system_prompt: "Talk like a pirate." });
    expect(screen.queryByRole("dialog")).toBeNull();
  });

  it("shows the server's refusal and stays open", async () => {
    const { user } = setup({
      onSave: async () => {
        throw new Error("pipeline.processors: unknown pipeline processor: telepathy");
      },
    });
    await user.click(screen.getByRole("button", { name: "Settings of branch alt" }));
    await user.click(screen.getByLabelText("Message processing steps (comma-separated)"));
    await user.paste("telepathy");
    await user.click(screen.getByRole("button", { name: "Save" }));
    expect(screen.getByRole("alert").textContent).toContain("telepathy");
    expect(screen.getByRole("dialog")).toBeTruthy();
  });

  it("delete asks for confirmation; the active branch offers no delete", async () => {
    const { user, onDelete } = setup();
    await user.click(screen.getByRole("button", { name: "Settings of branch alt" }));
    await user.click(screen.getByRole("button", { name: "Delete branch" }));
    expect(onDelete).not.toHaveBeenCalled();
    await user.click(screen.getByRole("button", { name: "Delete alt for good" }));
    expect(onDelete).toHaveBeenCalledTimes(1);
  });

  it("the active branch cannot be deleted", async () => {
    const { user } = setup({ active: true });
    await user.click(screen.getByRole("button", { name: "Settings of branch alt" }));
    expect(screen.queryByRole("button", { name: "Delete branch" })).toBeNull();
    expect(screen.getByRole("dialog").textContent).toContain("switch to another branch first");
  });
});
