import { render, screen } from "@testing-library/react";
import { userEvent } from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";
import type { ModelOption } from "./model-picker.js";
import { policyFromDraft, SessionSettings, type SessionSettingsProps } from "./session-settings.js";

const models: ModelOption[] = [
  {
    label: "Offline",
    model: { protocol: "offline", model: "offline", thinking_level: "off", context_window: 8000 },
  },
  {
    label: "Claude Sonnet",
    model: {
      protocol: "anthropic-messages",
      model: "claude-sonnet",
      thinking_level: "off",
      context_window: 200_000,
    },
  },
];

function setup(
  config: Partial<SessionSettingsProps["config"]> = {},
  sandbox?: SessionSettingsProps["sandbox"],
) {
  const user = userEvent.setup();
  const onSave = vi.fn();
  render(
    <SessionSettings
      config={{ agent_mode: "act", approval_policy: { type: "manual" }, ...config }}
      models={models}
      onSave={onSave}
      {...(sandbox ? { sandbox } : {})}
    />,
  );
  return { user, onSave };
}

describe("SessionSettings", () => {
  it("says that commands run in the sandbox", async () => {
    const { user } = setup({}, { mode: "bubblewrap", network: false, refused: "none" });
    await user.click(screen.getByRole("button", { name: "Session settings" }));
    expect(screen.getByTestId("sandbox-mode").textContent).toBe(
      "Commands run in a sandbox (bubblewrap, no network): only the workspace is writable. Local MCP servers run in it too.",
    );
  });

  it("warns when commands run without a sandbox, and says why", async () => {
    const open = setup(
      {},
      {
        mode: "none",
        network: true,
        reason: "ARBOR_SANDBOX=off",
        refused: "none",
        fix: "to confine tool processes, install bubblewrap (apt-get install bubblewrap) and unset ARBOR_SANDBOX",
      },
    );
    await open.user.click(screen.getByRole("button", { name: "Session settings" }));
    expect(screen.getByTestId("sandbox-mode").textContent).toBe(
      "⚠ Commands and local MCP servers run without a sandbox, as the server's user (ARBOR_SANDBOX=off). Approve commands with care. " +
        "To confine tool processes, install bubblewrap (apt-get install bubblewrap) and unset ARBOR_SANDBOX.",
    );
  });

  it("shows no sandbox line while the server's settings are unknown", async () => {
    const { user } = setup();
    await user.click(screen.getByRole("button", { name: "Session settings" }));
    expect(screen.queryByTestId("sandbox-mode")).toBeNull();
  });

  it("saves a new model, a white list and Plan mode", async () => {
    const { user, onSave } = setup({ model: models[0]?.model });
    await user.click(screen.getByRole("button", { name: "Session settings" }));
    const modelBox = screen.getByRole("combobox", { name: "Model" });
    expect(modelBox.textContent).toContain("Offline");
    await user.click(modelBox);
    await user.click(screen.getByRole("option", { name: "Claude Sonnet" }));
    await user.click(screen.getByRole("radio", { name: "Approve listed tools automatically" }));
    await user.type(
      screen.getByRole("textbox", { name: "Allowed tools (comma-separated)" }),
      "read_file, list_dir",
    );
    await user.click(screen.getByRole("radio", { name: /^Plan\b/ }));
    await user.click(screen.getByRole("button", { name: "Save" }));
    expect(onSave).toHaveBeenCalledWith({
      model: models[1]?.model,
      approval_policy: { type: "white_list", tools: ["read_file", "list_dir"] },
      agent_mode: "plan",
    });
    expect(screen.queryByRole("dialog")).toBeNull();
  }, 20_000);

  it("validates the limited-auto depth and sends only what changed", async () => {
    const { user, onSave } = setup();
    await user.click(screen.getByRole("button", { name: "Session settings" }));
    await user.click(
      screen.getByRole("radio", { name: "Approve automatically up to a loop depth" }),
    );
    const depth = screen.getByRole("textbox", { name: "Maximum auto-loop depth" });
    await user.clear(depth);
    await user.type(depth, "0");
    await user.click(screen.getByRole("button", { name: "Save" }));
    expect(screen.getByRole("alert").textContent).toBe("Depth must be a whole number from 1");
    expect(onSave).not.toHaveBeenCalled();
    await user.clear(depth);
    await user.type(depth, "5");
    await user.click(screen.getByRole("button", { name: "Save" }));
    expect(onSave).toHaveBeenCalledWith({
      approval_policy: { type: "limited_auto", max_depth: 5 },
    });
  });

  it("sets who may approve tool calls: owner only, then back to collaborators", async () => {
    const { user, onSave } = setup({ approvers: "collaborators" });
    await user.click(screen.getByRole("button", { name: "Session settings" }));
    const collaborators = screen.getByRole("radio", { name: "The owner and collaborators" });
    expect((collaborators as HTMLInputElement).checked).toBe(true);
    await user.click(screen.getByRole("radio", { name: "Only the session's owner" }));
    await user.click(screen.getByRole("button", { name: "Save" }));
    expect(onSave).toHaveBeenCalledWith({ approvers: "owner" });
  });

  it("chooses the agent role: Planner gets the read-only tools in Act mode too", async () => {
    const { user, onSave } = setup();
    await user.click(screen.getByRole("button", { name: "Session settings" }));
    const actor = screen.getByRole("radio", { name: /^Actor/ });
    expect((actor as HTMLInputElement).checked).toBe(true);
    await user.click(screen.getByRole("radio", { name: /^Planner/ }));
    await user.click(screen.getByRole("button", { name: "Save" }));
    expect(onSave).toHaveBeenCalledWith({ agent_role: "planner" });
  });

  it("shows how tool calls run (read-only ones together by default) and saves a change", async () => {
    const { user, onSave } = setup({ tool_execution: "parallel_read_only" });
    await user.click(screen.getByRole("button", { name: "Session settings" }));
    const readOnly = screen.getByRole("radio", {
      name: "Read-only tools together, others one at a time",
    });
    expect((readOnly as HTMLInputElement).checked).toBe(true);
    await user.click(screen.getByRole("radio", { name: "One tool at a time" }));
    await user.click(screen.getByRole("button", { name: "Save" }));
    expect(onSave).toHaveBeenCalledWith({ tool_execution: "sequential" });
  });

  it("turns context folding on and keeps the session's folding limits", async () => {
    const folding = {
      enabled: false,
      default_budget: 4096,
      max_budget: 16384,
      max_depth: 2,
      default_timeout_seconds: 120,
      max_timeout_seconds: 300,
      max_concurrent: 4,
      remember_by_default: true,
    };
    const { user, onSave } = setup({ folding });
    await user.click(screen.getByRole("button", { name: "Session settings" }));
    const toggle = screen.getByRole("checkbox", { name: /fold side work/ });
    expect((toggle as HTMLInputElement).checked).toBe(false);
    await user.click(toggle);
    await user.click(screen.getByRole("button", { name: "Save" }));
    expect(onSave).toHaveBeenCalledWith({ folding: { ...folding, enabled: true } });
  });

  it("does not call onSave when nothing changed", async () => {
    const { user, onSave } = setup();
    await user.click(screen.getByRole("button", { name: "Session settings" }));
    await user.click(screen.getByRole("button", { name: "Save" }));
    expect(onSave).not.toHaveBeenCalled();
  });

  it("builds each policy", () => {
    expect(policyFromDraft("auto_approve_all", "", "")).toEqual({
      ok: true,
      policy: { type: "auto_approve_all" },
    });
    expect(policyFromDraft("white_list", " a ,, b ", "")).toEqual({
      ok: true,
      policy: { type: "white_list", tools: ["a", "b"] },
    });
    expect(policyFromDraft("limited_auto", "", "x").ok).toBe(false);
  });
});

describe("Instructions in use", () => {
  it("lists the files with their sizes, marks a cut one, shows the text, and asks for a fresh read on open", async () => {
    const user = userEvent.setup();
    const onOpen = vi.fn();
    render(
      <SessionSettings
        config={{ agent_mode: "act", approval_policy: { type: "manual" } }}
        models={models}
        onSave={vi.fn()}
        onOpen={onOpen}
        instructions={{
          text: "From src/AGENTS.md:\nThin routes.\n\nFrom AGENTS.md:\nRun the tests.",
          files: [
            { path: "src/AGENTS.md", chars: 12, truncated: false },
            { path: "AGENTS.md", chars: 14, truncated: true },
          ],
          max_chars: 16_000,
        }}
      />,
    );
    await user.click(screen.getByRole("button", { name: "Session settings" }));
    expect(onOpen).toHaveBeenCalledTimes(1);
    const section = screen.getByRole("region", { name: "Instructions in use" });
    const items = screen.getByRole("list", { name: "Instruction files" }).querySelectorAll("li");
    expect([...items].map((li) => li.textContent)).toEqual([
      "src/AGENTS.md12 characters",
      "AGENTS.md14 characters · cut at the cap",
    ]);
    expect(section.textContent).toContain("Thin routes.");
  });

  it("says how to add instructions when there are none", async () => {
    const user = userEvent.setup();
    render(
      <SessionSettings
        config={{ agent_mode: "act", approval_policy: { type: "manual" } }}
        models={models}
        onSave={vi.fn()}
        instructions={{ text: "", files: [], max_chars: 16_000 }}
      />,
    );
    await user.click(screen.getByRole("button", { name: "Session settings" }));
    expect(screen.getByRole("region", { name: "Instructions in use" }).textContent).toContain(
      "add AGENTS.md, CLAUDE.md or .arbor/instructions.md",
    );
  });
});

describe("SessionSettings: context optimization", () => {
  const optimization = {
    strategy: {
      type: "intelligent" as const,
      keep_recent: 10,
      file_reference_window: 30,
      summarize: true,
    },
    trigger_ratio: 0.8,
    target_ratio: 0.5,
  };

  it("changes the strategy, trigger, target and who writes the summaries", async () => {
    const { user, onSave } = setup({ optimization });
    await user.click(screen.getByRole("button", { name: "Session settings" }));
    await user.click(screen.getByRole("radio", { name: "Recent messages only" }));
    const keep = screen.getByRole("textbox", { name: "Recent messages kept" });
    await user.clear(keep);
    await user.type(keep, "6");
    const trigger = screen.getByRole("textbox", { name: "Optimize at (% of window)" });
    await user.clear(trigger);
    await user.type(trigger, "70");
    await user.selectOptions(
      screen.getByRole("combobox", { name: "Summaries written by" }),
      "anthropic-messages:claude-sonnet",
    );
    await user.click(screen.getByRole("button", { name: "Save" }));
    expect(onSave).toHaveBeenCalledWith({
      optimization: {
        strategy: { type: "recent_n", n: 6 },
        trigger_ratio: 0.7,
        target_ratio: 0.5,
        summary_model: { protocol: "anthropic-messages", model: "claude-sonnet" },
      },
    });
  });

  it("extractive summaries are the offline protocol; a target at or above the trigger is refused", async () => {
    const { user, onSave } = setup({ optimization });
    await user.click(screen.getByRole("button", { name: "Session settings" }));
    const target = screen.getByRole("textbox", { name: "Shrink to (% of window)" });
    await user.clear(target);
    await user.type(target, "80");
    await user.click(screen.getByRole("button", { name: "Save" }));
    expect(screen.getByRole("alert").textContent).toBe("The target must be below the trigger");
    expect(onSave).not.toHaveBeenCalled();
    await user.clear(target);
    await user.type(target, "40");
    await user.selectOptions(
      screen.getByRole("combobox", { name: "Summaries written by" }),
      "extractive",
    );
    await user.click(screen.getByRole("button", { name: "Save" }));
    expect(onSave).toHaveBeenCalledWith({
      optimization: {
        ...optimization,
        target_ratio: 0.4,
        summary_model: { protocol: "offline", model: "extractive" },
      },
    });
  });

  it("saves nothing when nothing changed", async () => {
    const { user, onSave } = setup({ optimization });
    await user.click(screen.getByRole("button", { name: "Session settings" }));
    await user.click(screen.getByRole("button", { name: "Save" }));
    expect(onSave).not.toHaveBeenCalled();
  });

  it("saves the model's limits, the system prompt and the iteration timeout", async () => {
    const { user, onSave } = setup({
      model: models[1]?.model,
      auto_loop_iteration_timeout_ms: 30_000,
    });
    await user.click(screen.getByRole("button", { name: "Session settings" }));
    const window = screen.getByRole("textbox", { name: "Context window" });
    expect((window as HTMLInputElement).value).toBe("200000");
    await user.clear(window);
    await user.type(window, "5000");
    await user.type(screen.getByRole("textbox", { name: "Max tokens per answer" }), "777");
    await user.selectOptions(screen.getByRole("combobox", { name: "Thinking level" }), "high");
    await user.type(screen.getByRole("textbox", { name: "System prompt" }), "Be terse.");
    const timeout = screen.getByRole("textbox", { name: "Iteration timeout" });
    expect((timeout as HTMLInputElement).value).toBe("30");
    await user.clear(timeout);
    await user.type(timeout, "90");
    await user.click(screen.getByRole("button", { name: "Save" }));
    expect(onSave).toHaveBeenCalledWith({
      model: {
        protocol: "anthropic-messages",
        model: "claude-sonnet",
        thinking_level: "high",
        context_window: 5000,
        max_tokens: 777,
      },
      system_prompt: "Be terse.",
      auto_loop_iteration_timeout_ms: 90_000,
    });
  }, 20_000);

  it("refuses a context window that is not a whole number, naming the field", async () => {
    const { user, onSave } = setup({ model: models[1]?.model });
    await user.click(screen.getByRole("button", { name: "Session settings" }));
    const window = screen.getByRole("textbox", { name: "Context window" });
    await user.clear(window);
    await user.type(window, "lots");
    await user.click(screen.getByRole("button", { name: "Save" }));
    expect(screen.getByRole("alert").textContent).toBe(
      "Context window must be a whole number of tokens from 1",
    );
    expect(onSave).not.toHaveBeenCalled();
  });

  it("saves the folding budgets, and refuses a default above the largest", async () => {
    const folding = {
      enabled: true,
      default_budget: 8192,
      max_budget: 32768,
      max_depth: 3,
      default_timeout_seconds: 300,
      max_timeout_seconds: 600,
      max_concurrent: 10,
      remember_by_default: false,
    };
    const { user, onSave } = setup({ folding });
    await user.click(screen.getByRole("button", { name: "Session settings" }));
    const budget = screen.getByRole("textbox", { name: "Fold budget" });
    await user.clear(budget);
    await user.type(budget, "40000");
    await user.click(screen.getByRole("button", { name: "Save" }));
    expect(screen.getByRole("alert").textContent).toBe(
      "A fold's default budget cannot exceed its largest budget",
    );
    await user.clear(budget);
    await user.type(budget, "4000");
    const depth = screen.getByRole("textbox", { name: "Fold depth" });
    await user.clear(depth);
    await user.type(depth, "2");
    await user.click(screen.getByRole("button", { name: "Save" }));
    expect(onSave).toHaveBeenCalledWith({
      folding: { ...folding, default_budget: 4000, max_depth: 2 },
    });
  }, 20_000);

  it("shows the sandbox read-only, with how to change it", async () => {
    const { user } = setup({}, { mode: "bubblewrap", network: false, refused: "none" });
    await user.click(screen.getByRole("button", { name: "Session settings" }));
    const section = screen.getByRole("region", { name: "Sandbox" });
    expect(section.textContent).toContain("Commands run in a sandbox (bubblewrap, no network)");
    expect(screen.getByTestId("sandbox-how-to").textContent).toContain("ARBOR_SANDBOX=auto");
    expect(section.querySelector("input, select, textarea")).toBeNull();
  });
});
