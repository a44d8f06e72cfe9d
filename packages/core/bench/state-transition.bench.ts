// One state transition: the table check, the mode check, the history record and dispatch to a
// listener, over a realistic cycle (a text answer and a one-tool round). Target: < 0.1 ms mean
// (the spec allows 10 ms).

import { StateMachine } from "../src/context/state-machine.js";
import type { ContextState } from "../src/model/states.js";
import { type BenchFigure, median } from "./figure.js";

const CYCLE: ContextState[] = [
  { type: "ProcessingUserMessage" },
  { type: "EnhancingSystemPrompt" },
  { type: "OptimizingContext" },
  { type: "PreparingLLMRequest" },
  { type: "ConnectingToLLM" },
  { type: "AwaitingLLMFirstChunk" },
  { type: "StreamingLLMResponse", chunks: 1, chars: 10 },
  { type: "StreamingLLMResponse", chunks: 2, chars: 20 },
  { type: "ProcessingLLMResponse" },
  { type: "ParsingToolCalls" },
  { type: "ExecutingTool", tool_name: "read_file", attempt: 1, index: 1, total: 1 },
  { type: "CollectingToolResults" },
  { type: "ProcessingToolResults" },
  { type: "ToolAutoLoop", depth: 1, tools_executed: 1, tool_names: ["echo"] },
  { type: "PreparingLLMRequest" },
  { type: "ConnectingToLLM" },
  { type: "AwaitingLLMFirstChunk" },
  { type: "ProcessingLLMResponse" },
  { type: "Idle" },
];
const TRANSITIONS = 100_000;
const RUNS = 7;

function once(): number {
  const machine = new StateMachine({
    // act mode: since issue #26 (9e) plan mode runs its read-only calls in ResearchingPlan and
    // never enters the tool execution states this cycle goes through
    mode: () => "act",
    isPlanModeTool: (n) => n === "read_file",
  });
  let seen = 0;
  machine.onTransition(() => {
    seen++;
  });
  const started = performance.now();
  for (let i = 0; i < TRANSITIONS; i++) {
    const result = machine.transition(CYCLE[i % CYCLE.length]!);
    if (!result.ok) throw new Error(result.error.message);
  }
  const elapsed = performance.now() - started;
  if (seen !== TRANSITIONS) throw new Error(`listener saw ${seen} of ${TRANSITIONS} transitions`);
  return elapsed;
}

export async function run(): Promise<BenchFigure[]> {
  once();
  const times = Array.from({ length: RUNS }, once);
  const mean = median(times) / TRANSITIONS;
  return [
    {
      name: "state transition (incl. listener dispatch)",
      value: mean * 1000,
      unit: "µs",
      target: "< 100 µs (0.1 ms)",
      pass: mean < 0.1,
      notes: `median of ${RUNS} × ${TRANSITIONS} transitions, act mode, one listener, history bounded at 1000`,
    },
  ];
}
