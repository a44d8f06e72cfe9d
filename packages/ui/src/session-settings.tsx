"use client";

import type {
  AgentMode,
  AgentRole,
  ApprovalPolicy,
  Approvers,
  PatchConfigRequest,
  SandboxSettingsView,
  SessionConfig,
  ToolExecutionMode,
  WorkspaceInstructionsResponse,
} from "@arbor/core/browser";
import * as Dialog from "@radix-ui/react-dialog";
import * as Select from "@radix-ui/react-select";
import { type ReactNode, useId, useState } from "react";
import { type ApprovalRulesDraft, ApprovalRulesFields } from "./approval-rules-settings.js";
import { DialogPanel } from "./dialog.js";
import { InstructionsInUse } from "./instructions-in-use.js";
import { type ModelOption, modelKey } from "./model-picker.js";
import {
  type OptimizationDraft,
  OptimizationFields,
  optimizationDraftOf,
  optimizationFromDraft,
} from "./optimization-settings.js";
import {
  FoldingBudgetFields,
  IterationTimeoutField,
  type LimitsDraft,
  limitsDraftOf,
  limitsFromDraft,
  ModelLimitsFields,
  SandboxSection,
} from "./session-settings-fields.js";
import { unreachable } from "./state-label.js";
import { buttonClass, inputClass } from "./styles.js";

export type SessionSettingsPatch = Pick<
  PatchConfigRequest,
  | "agent_mode"
  | "agent_role"
  | "approval_policy"
  | "approvers"
  | "model"
  | "optimization"
  | "tool_execution"
  | "folding"
  | "system_prompt"
  | "auto_loop_iteration_timeout_ms"
  | "approve_read_only"
  | "allow_rules"
>;

export interface SessionSettingsProps {
  /** `optimization` present: its settings are shown (strategy, trigger, target, summarizer) */
  config: Pick<SessionConfig, "agent_mode" | "approval_policy" | "model"> &
    Partial<
      Pick<
        SessionConfig,
        | "optimization"
        | "approvers"
        | "agent_role"
        | "tool_execution"
        | "folding"
        | "system_prompt"
        | "auto_loop_iteration_timeout_ms"
        | "approve_read_only"
        | "allow_rules"
      >
    >;
  models: readonly ModelOption[];
  /** only the fields that changed; not called when nothing did */
  onSave: (patch: SessionSettingsPatch) => void;
  /** how the server runs commands (GET /api/settings); not shown while unknown */
  sandbox?: SandboxSettingsView;
  /** the workspace configuration's trust (WorkspaceTrustList), shown under its own heading */
  workspaceTrust?: ReactNode;
  /** the MCP servers' section (McpServerList), shown under its own heading */
  mcpServers?: ReactNode;
  /** the OpenAPI specs' section (OpenApiSpecList), shown under its own heading */
  openApiSpecs?: ReactNode;
  /** the skills' section (SkillList), shown under its own heading */
  skills?: ReactNode;
  /** the sub-agents' section (AgentList), shown under its own heading */
  agents?: ReactNode;
  /** the workspace instructions in use (GET .../instructions); not shown while unknown */
  instructions?: WorkspaceInstructionsResponse | undefined;
  /** called each time the dialog opens, e.g. to read the instructions afresh */
  onOpen?: () => void;
}

type PolicyType = ApprovalPolicy["type"];

const policyLabels: Record<PolicyType, string> = {
  auto_approve_all: "Approve every tool automatically",
  manual: "Ask me before every tool",
  white_list: "Approve listed tools automatically",
  limited_auto: "Approve automatically up to a loop depth",
};

/** Who may approve or deny the session's tool calls (issue #25); viewers never. */
const approversLabels: Record<Approvers, string> = {
  collaborators: "The owner and collaborators",
  owner: "Only the session's owner",
};

/** How one answer's tool calls run (issue #26); results reach the model in call order. */
const toolExecutionLabels: Record<ToolExecutionMode, string> = {
  parallel_read_only: "Read-only tools together, others one at a time",
  sequential: "One tool at a time",
  parallel: "Every tool of an answer at once",
};

interface Draft {
  modelKey: string | undefined;
  policy: PolicyType;
  approvers: Approvers;
  toolExecution: ToolExecutionMode;
  tools: string;
  depth: string;
  mode: AgentMode;
  role: AgentRole;
  /** context folding offered to the model (`branch`); shown when the config carries folding */
  folding: boolean;
  optimization: OptimizationDraft | undefined;
  /** the model's limits, the system prompt, the iteration timeout, the folding budgets */
  limits: LimitsDraft;
  /** approve_read_only and allow_rules (approval-rules-settings.tsx) */
  rules: ApprovalRulesDraft;
}

function draftOf(config: SessionSettingsProps["config"]): Draft {
  const policy = config.approval_policy;
  return {
    modelKey: config.model ? modelKey(config.model) : undefined,
    policy: policy.type,
    approvers: config.approvers ?? "collaborators",
    toolExecution: config.tool_execution ?? "parallel_read_only",
    tools: policy.type === "white_list" ? policy.tools.join(", ") : "",
    depth: policy.type === "limited_auto" ? String(policy.max_depth) : "3",
    mode: config.agent_mode,
    role: config.agent_role ?? "actor",
    folding: config.folding?.enabled ?? false,
    optimization: config.optimization ? optimizationDraftOf(config.optimization) : undefined,
    limits: limitsDraftOf(config),
    rules: {
      approveReadOnly: config.approve_read_only ?? true,
      allowRules: config.allow_rules ?? [],
    },
  };
}

type PolicyResult = { ok: true; policy: ApprovalPolicy } | { ok: false; error: string };

/** The draft's policy fields → an ApprovalPolicy, or why not. Exported for tests. */
export function policyFromDraft(type: PolicyType, tools: string, depth: string): PolicyResult {
  switch (type) {
    case "auto_approve_all":
    case "manual":
      return { ok: true, policy: { type } };
    case "white_list":
      return {
        ok: true,
        policy: {
          type,
          tools: tools
            .split(",")
            .map((t) => t.trim())
            .filter((t) => t !== ""),
        },
      };
    case "limited_auto": {
      const value = Number(depth.trim());
      if (!/^\d+$/.test(depth.trim()) || value < 1) {
        return { ok: false, error: "Depth must be a whole number from 1" };
      }
      return { ok: true, policy: { type, max_depth: value } };
    }
    default:
      return unreachable(type);
  }
}

export function SessionSettings({
  config,
  models,
  onSave,
  sandbox,
  workspaceTrust,
  mcpServers,
  openApiSpecs,
  skills,
  agents,
  instructions,
  onOpen,
}: SessionSettingsProps) {
  const [open, setOpen] = useState(false);
  const [draft, setDraft] = useState<Draft>(() => draftOf(config));
  const [error, setError] = useState<string | null>(null);
  const ids = { model: useId(), tools: useId(), depth: useId() };
  const set = (patch: Partial<Draft>) => setDraft((previous) => ({ ...previous, ...patch }));
  const limitsProps = {
    draft: draft.limits,
    hasModel: draft.modelKey !== undefined,
    hasFolding: config.folding !== undefined,
    invalid: error !== null,
    onChange: (change: Partial<LimitsDraft>) =>
      setDraft((previous) => ({ ...previous, limits: { ...previous.limits, ...change } })),
  };

  const save = () => {
    const result = policyFromDraft(draft.policy, draft.tools, draft.depth);
    if (!result.ok) {
      setError(result.error);
      return;
    }
    const patch: SessionSettingsPatch = {};
    if (draft.optimization !== undefined && config.optimization !== undefined) {
      const optimization = optimizationFromDraft(draft.optimization, config.optimization, models);
      if (!optimization.ok) {
        setError(optimization.error);
        return;
      }
      if (JSON.stringify(optimization.config) !== JSON.stringify(config.optimization)) {
        patch.optimization = optimization.config;
      }
    }
    const model = models.find((m) => modelKey(m.model) === draft.modelKey)?.model;
    const modelChanged =
      model !== undefined && (!config.model || modelKey(config.model) !== draft.modelKey);
    if (model && modelChanged) patch.model = model;
    const limits = limitsFromDraft(draft.limits, config, modelChanged ? model : config.model);
    if (!limits.ok) {
      setError(limits.error);
      return;
    }
    Object.assign(patch, limits.patch);
    if (JSON.stringify(result.policy) !== JSON.stringify(config.approval_policy)) {
      patch.approval_policy = result.policy;
    }
    if (draft.mode !== config.agent_mode) patch.agent_mode = draft.mode;
    if (draft.role !== (config.agent_role ?? "actor")) patch.agent_role = draft.role;
    if (draft.approvers !== (config.approvers ?? "collaborators")) {
      patch.approvers = draft.approvers;
    }
    if (draft.toolExecution !== (config.tool_execution ?? "parallel_read_only")) {
      patch.tool_execution = draft.toolExecution;
    }
    if (draft.rules.approveReadOnly !== (config.approve_read_only ?? true)) {
      patch.approve_read_only = draft.rules.approveReadOnly;
    }
    if (JSON.stringify(draft.rules.allowRules) !== JSON.stringify(config.allow_rules ?? [])) {
      patch.allow_rules = [...draft.rules.allowRules];
    }
    if (config.folding !== undefined && draft.folding !== config.folding.enabled) {
      // PATCH replaces the whole folding config: the session's limits stay as they are
      patch.folding = { ...(patch.folding ?? config.folding), enabled: draft.folding };
    }
    if (Object.keys(patch).length > 0) onSave(patch);
    setOpen(false);
  };

  return (
    <Dialog.Root
      open={open}
      onOpenChange={(next) => {
        // Every opening starts from the session's current config, not a stale draft.
        if (next) {
          setDraft(draftOf(config));
          setError(null);
          onOpen?.();
        }
        setOpen(next);
      }}
    >
      <Dialog.Trigger className={buttonClass.ghost} aria-label="Session settings">
        <span aria-hidden="true">⚙</span>
      </Dialog.Trigger>
      <DialogPanel title="Session settings">
        <form
          className="flex flex-col gap-4"
          onSubmit={(event) => {
            event.preventDefault();
            save();
          }}
        >
          <div className="flex flex-col gap-1">
            <span id={ids.model} className="text-sm font-medium">
              Model
            </span>
            <Select.Root
              {...(draft.modelKey === undefined ? {} : { value: draft.modelKey })}
              onValueChange={(value) => {
                // another model: its own limits, the thinking level and the prompt kept
                const chosen = models.find((m) => modelKey(m.model) === value)?.model;
                setDraft((previous) => ({
                  ...previous,
                  modelKey: value,
                  limits: chosen
                    ? {
                        ...previous.limits,
                        ...limitsDraftOf({ model: chosen }),
                        thinking: previous.limits.thinking,
                        systemPrompt: previous.limits.systemPrompt,
                        iterationTimeout: previous.limits.iterationTimeout,
                        foldDefaultBudget: previous.limits.foldDefaultBudget,
                        foldMaxBudget: previous.limits.foldMaxBudget,
                        foldMaxDepth: previous.limits.foldMaxDepth,
                      }
                    : previous.limits,
                }));
              }}
            >
              <Select.Trigger
                aria-labelledby={ids.model}
                className={`${inputClass} flex items-center justify-between`}
              >
                <Select.Value placeholder="The app's default model" />
                <Select.Icon aria-hidden="true">▾</Select.Icon>
              </Select.Trigger>
              <Select.Portal>
                <Select.Content
                  position="popper"
                  className="z-50 max-h-72 overflow-hidden rounded-md border border-zinc-200 bg-white shadow-lg dark:border-zinc-700 dark:bg-zinc-900"
                >
                  <Select.Viewport className="p-1">
                    {models.map((option) => (
                      <Select.Item
                        key={modelKey(option.model)}
                        value={modelKey(option.model)}
                        className="cursor-pointer rounded px-2 py-1 text-sm text-zinc-900 outline-none data-[highlighted]:bg-sky-100 dark:text-zinc-100 dark:data-[highlighted]:bg-sky-900"
                      >
                        <Select.ItemText>{option.label}</Select.ItemText>
                      </Select.Item>
                    ))}
                  </Select.Viewport>
                </Select.Content>
              </Select.Portal>
            </Select.Root>
          </div>
          <ModelLimitsFields {...limitsProps} />

          <fieldset className="flex flex-col gap-1">
            <legend className="mb-1 text-sm font-medium">Approval policy</legend>
            {(Object.keys(policyLabels) as PolicyType[]).map((type) => (
              <label key={type} className="flex items-center gap-2 text-sm">
                <input
                  type="radio"
                  name="approval-policy"
                  value={type}
                  checked={draft.policy === type}
                  onChange={() => set({ policy: type })}
                />
                {policyLabels[type]}
              </label>
            ))}
            {draft.policy === "white_list" && (
              <div className="mt-1 ml-6">
                <label htmlFor={ids.tools} className="text-sm">
                  Allowed tools (comma-separated)
                </label>
                <input
                  id={ids.tools}
                  className={inputClass}
                  value={draft.tools}
                  placeholder="read_file, list_dir"
                  onChange={(event) => set({ tools: event.target.value })}
                />
              </div>
            )}
            {draft.policy === "limited_auto" && (
              <div className="mt-1 ml-6">
                <label htmlFor={ids.depth} className="text-sm">
                  Maximum auto-loop depth
                </label>
                <input
                  id={ids.depth}
                  inputMode="numeric"
                  className={inputClass}
                  value={draft.depth}
                  aria-invalid={error !== null}
                  onChange={(event) => set({ depth: event.target.value })}
                />
              </div>
            )}
          </fieldset>

          <ApprovalRulesFields draft={draft.rules} onChange={(rules) => set({ rules })} />

          <fieldset className="flex flex-col gap-1">
            <legend className="mb-1 text-sm font-medium">Who may approve tool calls</legend>
            {(Object.keys(approversLabels) as Approvers[]).map((value) => (
              <label key={value} className="flex items-center gap-2 text-sm">
                <input
                  type="radio"
                  name="approvers"
                  value={value}
                  checked={draft.approvers === value}
                  onChange={() => set({ approvers: value })}
                />
                {approversLabels[value]}
              </label>
            ))}
            <p className="mt-1 text-xs text-zinc-600 dark:text-zinc-400">
              Viewers never approve. A decision from anyone else is refused.
            </p>
          </fieldset>

          <fieldset className="flex flex-col gap-1">
            <legend className="mb-1 text-sm font-medium">Tool execution</legend>
            {(Object.keys(toolExecutionLabels) as ToolExecutionMode[]).map((value) => (
              <label key={value} className="flex items-center gap-2 text-sm">
                <input
                  type="radio"
                  name="tool-execution"
                  value={value}
                  checked={draft.toolExecution === value}
                  onChange={() => set({ toolExecution: value })}
                />
                {toolExecutionLabels[value]}
              </label>
            ))}
            <p className="mt-1 text-xs text-zinc-600 dark:text-zinc-400">
              Read-only tools read files, search or look things up (MCP tools marked read-only).
              Each call keeps its own approval; results reach the model in call order.
            </p>
          </fieldset>
          <IterationTimeoutField {...limitsProps} />
          {sandbox !== undefined && <SandboxSection sandbox={sandbox} />}

          {config.folding !== undefined && (
            <fieldset className="flex flex-col gap-1">
              <legend className="mb-1 text-sm font-medium">Context folding</legend>
              <label className="flex items-center gap-2 text-sm">
                <input
                  type="checkbox"
                  checked={draft.folding}
                  onChange={(event) => set({ folding: event.currentTarget.checked })}
                />
                Let the model fold side work into a branch
              </label>
              <p className="mt-1 text-xs text-zinc-600 dark:text-zinc-400">
                The model may open a fold (<code>branch</code>) for a side task with its own budget;
                only the fold's result returns to the conversation.
              </p>
              <FoldingBudgetFields {...limitsProps} />
            </fieldset>
          )}

          <fieldset className="flex flex-col gap-1">
            <legend className="mb-1 text-sm font-medium">Agent mode</legend>
            <label className="flex items-center gap-2 text-sm">
              <input
                type="radio"
                name="agent-mode"
                checked={draft.mode === "plan"}
                onChange={() => set({ mode: "plan" })}
              />
              Plan (read-only tools, proposes a plan)
            </label>
            <label className="flex items-center gap-2 text-sm">
              <input
                type="radio"
                name="agent-mode"
                checked={draft.mode === "act"}
                onChange={() => set({ mode: "act" })}
              />
              Act (all tools)
            </label>
          </fieldset>

          <fieldset className="flex flex-col gap-1">
            <legend className="mb-1 text-sm font-medium">Agent role</legend>
            <label className="flex items-center gap-2 text-sm">
              <input
                type="radio"
                name="agent-role"
                checked={draft.role === "actor"}
                onChange={() => set({ role: "actor" })}
              />
              Actor (every tool the mode allows)
            </label>
            <label className="flex items-center gap-2 text-sm">
              <input
                type="radio"
                name="agent-role"
                checked={draft.role === "planner"}
                onChange={() => set({ role: "planner" })}
              />
              Planner (read-only tools, in Act mode too)
            </label>
          </fieldset>

          {draft.optimization !== undefined && (
            <OptimizationFields
              draft={draft.optimization}
              models={models}
              invalid={error !== null}
              onChange={(change) =>
                setDraft((previous) =>
                  previous.optimization === undefined
                    ? previous
                    : { ...previous, optimization: { ...previous.optimization, ...change } },
                )
              }
            />
          )}

          {workspaceTrust !== undefined && (
            <section className="flex flex-col gap-1" aria-label="Workspace trust">
              <h3 className="mb-1 text-sm font-medium">Workspace configuration</h3>
              <p className="text-xs text-zinc-600 dark:text-zinc-400">
                Servers, specs and hooks defined in the workspace's files start only once a person
                trusts them as they are now.
              </p>
              {workspaceTrust}
            </section>
          )}
          {mcpServers !== undefined && (
            <section className="flex flex-col gap-1" aria-label="MCP servers">
              <h3 className="mb-1 text-sm font-medium">MCP servers</h3>
              <p className="text-xs text-zinc-600 dark:text-zinc-400">
                MCP servers give the model more tools, and the composer their prompts (/) and
                resources (@). Every session of the app uses them.
              </p>
              {mcpServers}
            </section>
          )}
          {openApiSpecs !== undefined && (
            <section className="flex flex-col gap-1" aria-label="OpenAPI specs">
              <h3 className="mb-1 text-sm font-medium">OpenAPI tools</h3>
              <p className="text-xs text-zinc-600 dark:text-zinc-400">
                Each operation of an OpenAPI spec becomes a tool the model can call, with your
                approval.
              </p>
              {openApiSpecs}
            </section>
          )}
          {skills !== undefined && (
            <section className="flex flex-col gap-1" aria-label="Skills">
              <h3 className="mb-1 text-sm font-medium">Skills</h3>
              <p className="text-xs text-zinc-600 dark:text-zinc-400">
                Skills are instructions (SKILL.md) the model loads when a task needs them; add one
                as a folder under .arbor/skills or .claude/skills.
              </p>
              {skills}
            </section>
          )}
          {agents !== undefined && (
            <section className="flex flex-col gap-1" aria-label="Sub-agents">
              <h3 className="mb-1 text-sm font-medium">Sub-agents</h3>
              <p className="text-xs text-zinc-600 dark:text-zinc-400">
                Sub-agents are helpers the model can hand a task to, each with its own prompt and
                tools; add one as a file under .arbor/agents or .claude/agents.
              </p>
              {agents}
            </section>
          )}
          {instructions !== undefined && <InstructionsInUse instructions={instructions} />}

          {error !== null && (
            <p role="alert" className="text-sm text-red-700 dark:text-red-400">
              {error}
            </p>
          )}
          <div className="flex justify-end gap-2">
            <Dialog.Close type="button" className={buttonClass.secondary}>
              Cancel
            </Dialog.Close>
            <button type="submit" className={buttonClass.primary}>
              Save
            </button>
          </div>
        </form>
      </DialogPanel>
    </Dialog.Root>
  );
}
