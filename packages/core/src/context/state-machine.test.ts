import { describe, expect, it } from "vitest";
import type { AgentMode } from "../model/session-config.js";
import { type ContextState, ContextStateSchema, type ContextStateType } from "../model/states.js";
import {
  STATE_TRANSITIONS,
  StateMachine,
  type StateMachineOptions,
  stateInvariantViolation,
  TOOL_EXECUTION_STATES,
  type TransitionRecord,
} from "./state-machine.js";

const READ_TOOLS = new Set(["read_file", "search", "list_files", "present_plan", "ask_question"]);

/** A valid state of each type (tools named here are read-only). */
function sample(type: ContextStateType): ContextState {
  switch (type) {
    case "ResolvingFileReferences":
      return { type, count: 2 };
    case "StreamingLLMResponse":
      return { type, chunks: 3, chars: 40 };
    case "AwaitingToolApproval":
      return { type, pending_requests: ["call-1"], tool_names: ["read_file"] };
    case "ExecutingTool":
      return { type, tool_name: "read_file", attempt: 1, index: 1, total: 2 };
    case "ToolAutoLoop":
      return { type, depth: 1, tools_executed: 2, tool_names: ["read_file"] };
    case "ResearchingPlan":
      return { type, tool_names: ["read_file", "search"], tools_executed: 2 };
    case "AwaitingUserAnswer":
      return { type, question_message_id: "m-9" };
    case "Paused":
      return { type, reason: "interrupted" };
    case "SwitchingBranch":
      return { type, from: "b1", to: "b2" };
    case "Merging":
      return { type, strategy: "append" };
    case "Failed":
      return { type, error: "boom", recoverable: true };
    case "Idle":
    case "ProcessingUserMessage":
    case "EnhancingSystemPrompt":
    case "OptimizingContext":
    case "PreparingLLMRequest":
    case "ConnectingToLLM":
    case "AwaitingLLMFirstChunk":
    case "ProcessingLLMResponse":
    case "ParsingToolCalls":
    case "CollectingToolResults":
    case "ProcessingToolResults":
    case "ParsingPlan":
    case "Interrupting":
      return { type };
    default:
      return type satisfies never;
  }
}

const ALL_TYPES = Object.keys(STATE_TRANSITIONS) as ContextStateType[];

function machine(
  initial: ContextState = { type: "Idle" },
  mode: AgentMode = "act",
  extra: Partial<StateMachineOptions> = {},
): StateMachine {
  return new StateMachine({
    mode: () => mode,
    isPlanModeTool: (name) => READ_TOOLS.has(name),
    initial,
    ...extra,
  });
}

function walk(m: StateMachine, states: ContextState[]): void {
  for (const s of states) {
    const result = m.transition(s);
    if (!result.ok) throw new Error(result.error.message);
  }
}

describe("transition table", () => {
  it("covers every state of the union, and every sample is a valid state", () => {
    const schemaTypes = ContextStateSchema.options.map((o) => o.shape.type.value).sort();
    expect([...ALL_TYPES].sort()).toEqual(schemaTypes);
    for (const t of ALL_TYPES) {
      expect(ContextStateSchema.parse(sample(t))).toEqual(sample(t));
      expect(stateInvariantViolation(sample(t))).toBeUndefined();
    }
  });

  it("accepts every edge of the table", () => {
    let edges = 0;
    for (const from of ALL_TYPES) {
      for (const to of STATE_TRANSITIONS[from]) {
        const planOnly = to === "ParsingPlan" || to === "ResearchingPlan";
        const m = machine(sample(from), planOnly ? "plan" : "act");
        const result = m.transition(sample(to));
        expect(result, `${from} → ${to}`).toEqual({ ok: true, previous: sample(from) });
        expect(m.current).toEqual(sample(to));
        edges++;
      }
    }
    expect(edges).toBeGreaterThan(60);
  });

  it("rejects every pair outside the table and never applies it", () => {
    for (const from of ALL_TYPES) {
      for (const to of ALL_TYPES) {
        if (STATE_TRANSITIONS[from].includes(to)) continue;
        const m = machine(sample(from), to === "ResearchingPlan" ? "plan" : "act");
        const result = m.transition(sample(to));
        expect(result.ok, `${from} → ${to}`).toBe(false);
        if (!result.ok) expect(result.error).toMatchObject({ kind: "not_allowed", from, to });
        expect(m.current).toEqual(sample(from));
        expect(m.history).toEqual([]);
      }
    }
  });

  it("invalid transitions: a sample of moves the flow never makes", () => {
    const cases: Array<[ContextStateType, ContextStateType]> = [
      ["Idle", "StreamingLLMResponse"],
      ["Idle", "ExecutingTool"],
      ["Idle", "Failed"],
      ["StreamingLLMResponse", "ExecutingTool"],
      ["AwaitingToolApproval", "StreamingLLMResponse"],
      ["Failed", "ExecutingTool"],
      ["SwitchingBranch", "Merging"],
    ];
    for (const [from, to] of cases) {
      const m = machine(sample(from));
      expect(m.canTransition(to)).toBe(false);
      expect(m.transition(sample(to)).ok).toBe(false);
      expect(m.current).toEqual(sample(from));
    }
  });

  it("Failed is reachable from every state except Idle, and Failed leads to Idle or a retry", () => {
    for (const from of ALL_TYPES) {
      const expected = from !== "Idle" && from !== "Failed";
      expect(STATE_TRANSITIONS[from].includes("Failed"), from).toBe(expected);
    }
    expect([...STATE_TRANSITIONS.Failed].sort()).toEqual([
      "Idle",
      "PreparingLLMRequest",
      "ProcessingUserMessage",
    ]);
  });

  it("every state can get back to Idle", () => {
    for (const start of ALL_TYPES) {
      const seen = new Set<ContextStateType>([start]);
      const queue: ContextStateType[] = [start];
      while (queue.length > 0) {
        for (const next of STATE_TRANSITIONS[queue.shift()!]) {
          if (!seen.has(next)) {
            seen.add(next);
            queue.push(next);
          }
        }
      }
      expect(seen.has("Idle"), start).toBe(true);
    }
  });

  it("rejects states that break their invariants", () => {
    const m = machine(sample("ParsingToolCalls"));
    const result = m.transition({
      type: "ExecutingTool",
      tool_name: "read_file",
      attempt: 1,
      index: 3,
      total: 2,
    });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error.kind).toBe("invalid_state");
    expect(
      m.transition({ type: "AwaitingToolApproval", pending_requests: [], tool_names: [] }).ok,
    ).toBe(false);
    expect(m.current.type).toBe("ParsingToolCalls");
  });
});

describe("the flows", () => {
  it("one tool round with the auto-loop, end to end", () => {
    const m = machine();
    walk(m, [
      { type: "ProcessingUserMessage" },
      { type: "ResolvingFileReferences", count: 1 },
      { type: "EnhancingSystemPrompt" },
      { type: "OptimizingContext" },
      { type: "PreparingLLMRequest" },
      { type: "ConnectingToLLM" },
      { type: "AwaitingLLMFirstChunk" },
      { type: "StreamingLLMResponse", chunks: 1, chars: 5 },
      { type: "StreamingLLMResponse", chunks: 2, chars: 12 },
      { type: "ProcessingLLMResponse" },
      { type: "ParsingToolCalls" },
      { type: "ExecutingTool", tool_name: "bash", attempt: 1, index: 1, total: 2 },
      { type: "ExecutingTool", tool_name: "read_file", attempt: 1, index: 2, total: 2 },
      { type: "CollectingToolResults" },
      { type: "ProcessingToolResults" },
      { type: "ToolAutoLoop", depth: 1, tools_executed: 2, tool_names: ["read_file"] },
      { type: "PreparingLLMRequest" },
      { type: "ConnectingToLLM" },
      { type: "AwaitingLLMFirstChunk" },
      { type: "StreamingLLMResponse", chunks: 1, chars: 4 },
      { type: "ProcessingLLMResponse" },
      { type: "Idle" },
    ]);
    expect(m.history.map((r) => r.to.type)).toHaveLength(22);
  });

  it("interrupt, pause and resume", () => {
    const m = machine(sample("ExecutingTool"));
    walk(m, [
      { type: "Interrupting" },
      { type: "Paused", reason: "interrupted" },
      { type: "ToolAutoLoop", depth: 2, tools_executed: 3, tool_names: ["read_file"] },
      { type: "Paused", reason: "auto_loop_limit" },
      { type: "ProcessingUserMessage" },
    ]);
    expect(m.current.type).toBe("ProcessingUserMessage");
  });

  it("approval: approve, deny all, or cancel", () => {
    for (const next of [
      sample("ExecutingTool"),
      { type: "ProcessingToolResults" } as const,
      { type: "Idle" } as const,
    ]) {
      const m = machine(sample("AwaitingToolApproval"));
      expect(m.transition(next).ok).toBe(true);
    }
  });

  it("manual optimize, branch switch and merge start from Idle and return to it", () => {
    const m = machine();
    walk(m, [
      { type: "OptimizingContext" },
      { type: "Idle" },
      { type: "SwitchingBranch", from: "main", to: "alt" },
      { type: "Idle" },
      { type: "Merging", strategy: "rebase" },
      { type: "Idle" },
    ]);
  });
});

describe("mode awareness", () => {
  it("plan mode never enters the execution states of write or execute tools", () => {
    const m = machine(sample("ParsingToolCalls"), "plan");
    for (const tool_name of ["write_file", "edit_file", "bash", "unknown_tool"]) {
      const exec = m.transition({
        type: "ExecutingTool",
        tool_name,
        attempt: 1,
        index: 1,
        total: 1,
      });
      expect(exec.ok).toBe(false);
      if (!exec.ok) expect(exec.error).toMatchObject({ kind: "forbidden_in_mode", mode: "plan" });
      const approval = m.transition({
        type: "AwaitingToolApproval",
        pending_requests: ["c1", "c2"],
        tool_names: ["read_file", tool_name],
      });
      expect(approval.ok).toBe(false);
    }
    expect(m.current.type).toBe("ParsingToolCalls");
    expect(m.history).toEqual([]);
  });

  it("plan mode never enters a tool execution state, not even for a read-only tool (issue #26 9e)", () => {
    for (const from of ALL_TYPES) {
      for (const to of STATE_TRANSITIONS[from]) {
        if (!TOOL_EXECUTION_STATES.has(to)) continue;
        const m = machine(sample(from), "plan");
        const result = m.transition(
          to === "ExecutingTool"
            ? { type: "ExecutingTool", tool_name: "search", attempt: 1, index: 1, total: 1 }
            : sample(to),
        );
        expect(result.ok, `${from} → ${to} in plan mode`).toBe(false);
        if (!result.ok)
          expect(result.error).toMatchObject({ kind: "forbidden_in_mode", mode: "plan", to });
      }
    }
    // its read-only calls run in ResearchingPlan, which act mode never enters
    const research: ContextState = {
      type: "ResearchingPlan",
      tool_names: ["search"],
      tools_executed: 0,
    };
    expect(machine(sample("ProcessingLLMResponse"), "plan").transition(research).ok).toBe(true);
    expect(machine(sample("ProcessingLLMResponse"), "act").transition(research).ok).toBe(false);
    // a person's approval of a read-only call is still asked in plan mode
    expect(
      machine(sample("ProcessingLLMResponse"), "plan").transition({
        type: "AwaitingToolApproval",
        pending_requests: ["c1"],
        tool_names: ["search"],
      }).ok,
    ).toBe(true);
  });

  it("ParsingPlan is valid only in plan mode; question handling in both", () => {
    expect(machine(sample("ProcessingLLMResponse"), "act").canTransition("ParsingPlan")).toBe(
      false,
    );
    expect(machine(sample("ProcessingLLMResponse"), "plan").canTransition("ParsingPlan")).toBe(
      true,
    );
    for (const mode of ["plan", "act"] as const) {
      expect(
        machine(sample("ProcessingLLMResponse"), mode).canTransition("AwaitingUserAnswer"),
      ).toBe(true);
    }
  });

  it("act mode runs write tools; a mode switch applies at the next transition", () => {
    let mode: AgentMode = "act";
    const m = new StateMachine({
      mode: () => mode,
      isPlanModeTool: (name) => READ_TOOLS.has(name),
      initial: sample("ParsingToolCalls"),
    });
    const bash = (index: number): ContextState => ({
      type: "ExecutingTool",
      tool_name: "bash",
      attempt: 1,
      index,
      total: 2,
    });
    expect(m.transition(bash(1)).ok).toBe(true);
    mode = "plan";
    expect(m.transition(bash(2)).ok).toBe(false);
    expect(m.current).toEqual(bash(1));
  });
});

describe("observability", () => {
  it("history records from, to and time; listeners see each applied transition", () => {
    let clock = 1000;
    const m = machine({ type: "Idle" }, "act", { now: () => clock++ });
    const seen: TransitionRecord[] = [];
    const off = m.onTransition((r) => seen.push(r));
    walk(m, [{ type: "ProcessingUserMessage" }, { type: "EnhancingSystemPrompt" }]);
    m.transition({ type: "StreamingLLMResponse", chunks: 0, chars: 0 }); // refused: not seen
    off();
    m.transition({ type: "OptimizingContext" });
    expect(seen.map((r) => [r.from.type, r.to.type, r.at, r.kind])).toEqual([
      ["Idle", "ProcessingUserMessage", 1000, "transition"],
      ["ProcessingUserMessage", "EnhancingSystemPrompt", 1001, "transition"],
    ]);
    expect(m.history.map((r) => r.to.type)).toEqual([
      "ProcessingUserMessage",
      "EnhancingSystemPrompt",
      "OptimizingContext",
    ]);
  });

  it("history is bounded to the most recent records", () => {
    const m = machine(sample("StreamingLLMResponse"), "act", { historyLimit: 5 });
    for (let i = 1; i <= 23; i++)
      m.transition({ type: "StreamingLLMResponse", chunks: i, chars: i });
    const history = m.history;
    expect(history).toHaveLength(5);
    expect(history.map((r) => (r.to.type === "StreamingLLMResponse" ? r.to.chunks : -1))).toEqual([
      19, 20, 21, 22, 23,
    ]);
  });

  it("a throwing listener neither undoes the transition nor silences the others", () => {
    const errors: unknown[] = [];
    const m = machine({ type: "Idle" }, "act", { onListenerError: (e) => errors.push(e) });
    const seen: string[] = [];
    m.onTransition(() => {
      throw new Error("listener broke");
    });
    m.onTransition((r) => seen.push(r.to.type));
    expect(m.transition({ type: "ProcessingUserMessage" }).ok).toBe(true);
    expect(m.current.type).toBe("ProcessingUserMessage");
    expect(seen).toEqual(["ProcessingUserMessage"]);
    expect(errors).toHaveLength(1);
  });

  it("reset bypasses the table for recovery and is recorded as such", () => {
    const m = machine(sample("StreamingLLMResponse"));
    expect(m.canTransition("Idle")).toBe(false);
    const previous = m.reset({ type: "Idle" });
    expect(previous.type).toBe("StreamingLLMResponse");
    expect(m.current).toEqual({ type: "Idle" });
    expect(m.history.at(-1)?.kind).toBe("reset");
  });
});

describe("State without auxiliary flags", () => {
  it("the state object is all there is: its type and data say what is happening", () => {
    const m = machine(sample("ParsingToolCalls"));
    walk(m, [{ type: "ExecutingTool", tool_name: "read_file", attempt: 2, index: 2, total: 5 }]);
    const state = m.current;
    // no is_streaming / is_waiting / is_executing beside it, on the state or on the machine
    for (const key of Object.keys(state)) expect(key).not.toMatch(/^is_|^is[A-Z]/);
    const ownKeys = Object.getOwnPropertyNames(m);
    expect(ownKeys.filter((k) => /^is|streaming|waiting|executing/i.test(k))).toEqual([]);
    expect(describeState(state)).toBe("Executing tool 2/5: read_file (attempt 2)");
  });
});

/** What a UI renders, from the state alone (pattern matching is sufficient). */
function describeState(state: ContextState): string {
  if (state.type === "ExecutingTool") {
    return `Executing tool ${state.index}/${state.total}: ${state.tool_name} (attempt ${state.attempt})`;
  }
  return state.type;
}
