import type {
  CandidateTool,
  ParallelStrategyName,
  ParallelVerdict,
  Usage,
} from "@arbor/core/browser";
import type { StreamedEvent } from "./sse";

// "Ask N ways" as the chat page sees it (issue #14): the running (or last) group's columns, fed by
// its parallel_* and candidate_* events. The stored messages come from GET .../messages as usual;
// this is the live view until the verdict (and the columns stay readable after it until the next
// message).

export interface LiveCandidateTool {
  tool_call_id: string;
  tool_name: string;
  arguments: Record<string, unknown> | undefined;
  status: CandidateTool["status"];
}

export interface LiveCandidate {
  index: number;
  label: string;
  model: string;
  loop_id: string;
  text: string;
  thinking: string;
  tools: LiveCandidateTool[];
  status: "running" | "waiting" | "complete" | "failed" | "aborted";
  error: string | undefined;
  usage: Usage | undefined;
}

export interface LiveParallel {
  group_id: string;
  message_id: string;
  strategy: ParallelStrategyName;
  candidates: LiveCandidate[];
  verdict: ParallelVerdict | undefined;
  /** the candidate the person took after the verdict ("Use this answer"), when they did */
  choice: number | undefined;
}

type ParallelEvent = Extract<
  StreamedEvent,
  {
    name:
      | "parallel_started"
      | "candidate_delta"
      | "candidate_tool"
      | "candidate_finished"
      | "parallel_verdict";
  }
>;

function withCandidate(
  group: LiveParallel,
  index: number,
  change: (candidate: LiveCandidate) => LiveCandidate,
): LiveParallel {
  return {
    ...group,
    candidates: group.candidates.map((c) => (c.index === index ? change(c) : c)),
  };
}

/** The group after `event`; events of another group than the one shown start nothing. */
export function applyParallel(
  group: LiveParallel | undefined,
  event: ParallelEvent,
): LiveParallel | undefined {
  if (event.name === "parallel_started") {
    const p = event.payload;
    return {
      group_id: p.group_id,
      message_id: p.message_id,
      strategy: p.strategy,
      verdict: undefined,
      choice: undefined,
      candidates: p.candidates.map((c) => ({
        index: c.index,
        label: c.label,
        model: c.model,
        loop_id: c.loop_id,
        text: "",
        thinking: "",
        tools: [],
        status: "running",
        error: undefined,
        usage: undefined,
      })),
    };
  }
  if (group === undefined || event.payload.group_id !== group.group_id) return group;
  switch (event.name) {
    case "candidate_delta": {
      const { candidate, delta, channel } = event.payload;
      return withCandidate(group, candidate, (c) =>
        channel === "thinking"
          ? { ...c, thinking: c.thinking + delta }
          : { ...c, text: c.text + delta },
      );
    }
    case "candidate_tool": {
      const p = event.payload;
      return withCandidate(group, p.candidate, (c) => {
        const known = c.tools.find((t) => t.tool_call_id === p.tool_call_id);
        const tool: LiveCandidateTool = {
          tool_call_id: p.tool_call_id,
          tool_name: p.tool_name,
          arguments: p.arguments ?? known?.arguments,
          status: p.status,
        };
        const tools = known
          ? c.tools.map((t) => (t.tool_call_id === p.tool_call_id ? tool : t))
          : [...c.tools, tool];
        const waiting = tools.some((t) => t.status === "pending_approval");
        return { ...c, tools, status: waiting ? "waiting" : "running" };
      });
    }
    case "candidate_finished": {
      const p = event.payload;
      return withCandidate(group, p.candidate, (c) => ({
        ...c,
        status: p.status,
        // the final text is the answer as stored (a cut stream's text stays what was seen)
        text: p.text !== "(no text output)" ? p.text : c.text,
        error: p.error,
        usage: p.usage,
      }));
    }
    case "parallel_verdict":
      return { ...group, verdict: event.payload };
    default: {
      const unknown: never = event;
      return unknown;
    }
  }
}

/** The candidate whose answer the conversation goes on with: the person's choice, else the verdict's. */
export function chosenCandidate(group: LiveParallel): number | undefined {
  return group.choice ?? group.verdict?.selected;
}
