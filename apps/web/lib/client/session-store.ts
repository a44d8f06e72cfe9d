import type {
  ContextState,
  ErrorEvent,
  FoldReturned,
  FoldView,
  MessageRole,
  MessageType,
  SubAgentUpdate,
  Usage,
} from "@arbor/core/browser";
import { applyParallel, type LiveParallel } from "./parallel-store";
import type { StreamedEvent } from "./sse";

// The chat page's live view of one session, fed by session events: the fine-grained state (from
// context_update), the text streamed so far per message (content_delta, text and thinking
// channels), messages announced but not yet fetched, and the latest error for a banner. Stored
// messages themselves come from GET .../messages; the store only says when to refetch them.
//
// Two sources feed it: the live subscription (GET .../events, the authority: every stored event
// in order, replayed after a reconnect) and the stream answering the user's own POST (sooner to
// arrive, and the only carrier of unsequenced refusals). Each sequenced event is applied once:
// from the subscription when it is newer than the last applied, from a POST stream only when it is
// the very next one (anything after a gap waits for the subscription, which delivers in order).

export interface StreamBuffer {
  text: string;
  thinking: string;
  chunks: number;
}

export interface AnnouncedMessage {
  message_id: string;
  message_type: MessageType;
  role: MessageRole;
  /** "" for a message known only from its deltas: the answer streaming on the active branch */
  branch_id: string;
}

export interface LiveSnapshot {
  /** the last sequence applied; 0 before the first event */
  lastSequence: number;
  /** undefined until the first context_update: show the session detail's state meanwhile */
  state: ContextState | undefined;
  streams: Readonly<Record<string, StreamBuffer>>;
  /** created by an event, not yet in a fetched message list */
  announced: readonly AnnouncedMessage[];
  error: ErrorEvent | undefined;
  /**
   * The last ToolAutoLoop state of the running operation: it lasts an instant (the next request
   * starts at once), so the page keeps showing the round until the operation rests.
   */
  autoLoop: { depth: number; tools_executed: number; tool_names: string[] } | undefined;
  /** the session's folds seen in its events, by fold id */
  folds: Readonly<Record<string, LiveFold>>;
  /**
   * The latest progress of the running operation's tool calls (tool_progress), by tool call id;
   * cleared when the operation rests or a new one begins.
   */
  toolProgress: Readonly<Record<string, string>>;
  /** the running (or last) "ask N ways" group: its columns and verdict (parallel-store.ts) */
  parallel: LiveParallel | undefined;
  /** the sub-agent calls seen in its events, by tool call id (subagent_update) */
  subAgents: Readonly<Record<string, LiveSubAgent>>;
}

/** A sub-agent call's child loop as its events describe it, for the chat's sub-agent card. */
export interface LiveSubAgent {
  tool_call_id: string;
  tool_name: string;
  loop_id: string;
  /** the child's answer text streamed so far */
  text: string;
  /** its tool calls and progress lines, in order */
  progress: readonly string[];
  status: "running" | Extract<SubAgentUpdate, { kind: "ended" }>["status"];
  turns: number;
  usage: Usage | undefined;
  /** its calls held for a person (kind approval), in order, with their latest status */
  approvals: readonly LiveSubAgentApproval[];
}

/** A sub-agent's child call held for a person, as its subagent_update events describe it. */
export interface LiveSubAgentApproval {
  call_id: string;
  call_name: string;
  arguments: Record<string, unknown>;
  status: "pending_approval" | "approved" | "denied";
  cancelled: boolean;
  /** who decided it (issue #25) */
  decided_by?: { id: string; name: string } | null;
}

/** A fold (a `branch` call's child loop) as its events describe it, for the chat's fold card. */
export interface LiveFold {
  fold_id: string;
  parent_fold_id: string | null;
  depth: number;
  description: string;
  budget: number;
  tokens_used: number;
  loop_id: string | null;
  /** the `branch` call that started it: its card goes under that call */
  tool_call_id: string | null;
  status: "running" | "returned" | "forced";
  /** the 80% warning was sent */
  warned: boolean;
  reason: FoldReturned["reason"];
  /** the scrubbed message the parent received */
  message: string | undefined;
}

export type EventSource = "subscription" | "request";

/** What the page must refetch after an event. */
export interface StoreEffects {
  /** messages were created, changed status or completed */
  onMessagesChanged: () => void;
  /** the session's config, branches or merges may have changed (a resting state was reached) */
  onSessionChanged: () => void;
}

const RESTING: ReadonlySet<ContextState["type"]> = new Set([
  "Idle",
  "Paused",
  "Failed",
  "AwaitingToolApproval",
  "AwaitingUserAnswer",
]);

/** States that start a new operation: an error from an earlier one is no longer current. */
const STARTING: ReadonlySet<ContextState["type"]> = new Set([
  "ProcessingUserMessage",
  "ConnectingToLLM",
  "SwitchingBranch",
  "Merging",
]);

/** Refusals answer the request that caused them; its own stream shows them already. */
const REFUSALS: ReadonlySet<ErrorEvent["code"]> = new Set([
  "invalid_transition",
  "invalid_request",
]);

const EMPTY: LiveSnapshot = {
  lastSequence: 0,
  state: undefined,
  streams: {},
  announced: [],
  error: undefined,
  autoLoop: undefined,
  folds: {},
  toolProgress: {},
  parallel: undefined,
  subAgents: {},
};

export class SessionLiveStore {
  #snapshot: LiveSnapshot = EMPTY;
  #listeners = new Set<() => void>();
  #scheduled = false;
  readonly #effects: StoreEffects;

  constructor(effects: StoreEffects) {
    this.#effects = effects;
  }

  getSnapshot = (): LiveSnapshot => this.#snapshot;

  subscribe = (listener: () => void): (() => void) => {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  };

  /** Applies an event unless it was applied already (see the rule at the top of this file). */
  ingest(event: StreamedEvent, source: EventSource): void {
    const last = this.#snapshot.lastSequence;
    if (event.sequence === 0) {
      if (source === "subscription" && event.name === "error" && REFUSALS.has(event.payload.code))
        return;
    } else if (source === "subscription" ? event.sequence <= last : event.sequence !== last + 1) {
      return;
    }
    const next = apply(this.#snapshot, event, this.#effects);
    this.#snapshot =
      event.sequence === 0 ? next : { ...next, lastSequence: Math.max(last, event.sequence) };
    this.#notify();
  }

  /** Drops announcements the fetched message list now holds. */
  forgetAnnounced(knownIds: ReadonlySet<string>): void {
    const announced = this.#snapshot.announced.filter((m) => !knownIds.has(m.message_id));
    if (announced.length === this.#snapshot.announced.length) return;
    this.#snapshot = { ...this.#snapshot, announced };
    this.#notify();
  }

  /** Hides a decided "ask N ways" group's columns (its answers are stored). */
  dismissParallel(): void {
    if (this.#snapshot.parallel === undefined) return;
    this.#snapshot = { ...this.#snapshot, parallel: undefined };
    this.#notify();
  }

  /** The person took another candidate's answer (POST …/parallel/{group}/choose answered). */
  chooseParallel(groupId: string, candidate: number): void {
    const group = this.#snapshot.parallel;
    if (group === undefined || group.group_id !== groupId) return;
    this.#snapshot = { ...this.#snapshot, parallel: { ...group, choice: candidate } };
    this.#notify();
  }

  setError(error: ErrorEvent | undefined): void {
    this.#snapshot = { ...this.#snapshot, error };
    this.#notify();
  }

  // Deltas arrive by the dozen per second; one render per animation frame is enough to read.
  #notify(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    const flush = () => {
      this.#scheduled = false;
      for (const listener of this.#listeners) listener();
    };
    if (typeof requestAnimationFrame === "function") requestAnimationFrame(flush);
    else setTimeout(flush, 16);
  }
}

function apply(snapshot: LiveSnapshot, event: StreamedEvent, effects: StoreEffects): LiveSnapshot {
  switch (event.name) {
    case "context_update": {
      const { current_state: state, message_update: update } = event.payload;
      let next: LiveSnapshot = { ...snapshot, state };
      if (STARTING.has(state.type)) next = { ...next, error: undefined };
      // a decided group's columns stay until the next message
      if (state.type === "ProcessingUserMessage" && next.parallel?.verdict !== undefined) {
        next = { ...next, parallel: undefined };
      }
      // the round stays visible through the next request (ConnectingToLLM…) until the
      // operation rests or a new one begins
      if (RESTING.has(state.type) || state.type === "ProcessingUserMessage") {
        next = { ...next, autoLoop: undefined };
        if (Object.keys(next.toolProgress).length > 0) next = { ...next, toolProgress: {} };
      }
      if (state.type === "ToolAutoLoop") {
        next = {
          ...next,
          autoLoop: {
            depth: state.depth,
            tools_executed: state.tools_executed,
            tool_names: state.tool_names,
          },
        };
      }
      if (update) {
        if (update.kind === "created") {
          next = {
            ...next,
            announced: [
              ...next.announced.filter((m) => m.message_id !== update.message_id),
              {
                message_id: update.message_id,
                message_type: update.message_type,
                role: update.role,
                branch_id: update.branch_id,
              },
            ],
          };
        }
        if (update.kind === "status_changed" && update.status === "failed") {
          // an announced attempt that was not kept: its card goes (a stored one comes back with
          // the list)
          next = {
            ...next,
            announced: next.announced.filter((m) => m.message_id !== update.message_id),
          };
        }
        effects.onMessagesChanged();
        // a user's message is stored with the title it gives a new session, and it changes the
        // list's message count: the header and the session list refetch at once, not at the end
        if (update.kind === "created" && update.role === "user") effects.onSessionChanged();
      }
      // a new title (the model's automatic one, a rename elsewhere): the header reads it again
      if (typeof event.payload.metadata?.title_changed === "string") effects.onSessionChanged();
      if (RESTING.has(state.type) && snapshot.state?.type !== state.type) {
        effects.onSessionChanged();
        effects.onMessagesChanged();
      }
      return next;
    }
    case "content_delta": {
      const { message_id, delta, channel } = event.payload;
      const previous = snapshot.streams[message_id] ?? { text: "", thinking: "", chunks: 0 };
      const buffer: StreamBuffer =
        channel === "thinking"
          ? { ...previous, thinking: previous.thinking + delta, chunks: previous.chunks + 1 }
          : { ...previous, text: previous.text + delta, chunks: previous.chunks + 1 };
      // An answer is announced ("created") before its first delta; a stream replayed from before
      // that announcement has only its deltas, so they announce it for a stand-in card.
      const known = snapshot.announced.some((m) => m.message_id === message_id);
      return {
        ...snapshot,
        streams: { ...snapshot.streams, [message_id]: buffer },
        announced: known
          ? snapshot.announced
          : [
              ...snapshot.announced,
              { message_id, message_type: "text", role: "assistant", branch_id: "" },
            ],
      };
    }
    case "content_final": {
      effects.onMessagesChanged();
      // the stream is over; "created" (with its branch) follows if the message was stored
      const { message_id } = event.payload;
      return {
        ...snapshot,
        announced: snapshot.announced.filter(
          (m) => !(m.message_id === message_id && m.branch_id === ""),
        ),
      };
    }
    case "error":
      return { ...snapshot, error: event.payload };
    case "fold_started": {
      const p = event.payload;
      const fold: LiveFold = {
        fold_id: p.fold_id,
        parent_fold_id: p.parent_fold_id,
        depth: p.depth,
        description: p.description,
        budget: p.budget,
        tokens_used: 0,
        loop_id: p.loop_id,
        tool_call_id: p.tool_call_id ?? null,
        status: "running",
        warned: false,
        reason: null,
        message: undefined,
      };
      // its steps come with GET /folds
      effects.onMessagesChanged();
      return { ...snapshot, folds: { ...snapshot.folds, [p.fold_id]: fold } };
    }
    case "fold_budget_warning": {
      const p = event.payload;
      const fold = snapshot.folds[p.fold_id];
      if (!fold) return snapshot;
      const next: LiveFold = { ...fold, tokens_used: p.tokens_used, warned: true };
      effects.onMessagesChanged();
      return { ...snapshot, folds: { ...snapshot.folds, [p.fold_id]: next } };
    }
    case "fold_returned": {
      const p = event.payload;
      const fold = snapshot.folds[p.fold_id];
      if (!fold) return snapshot;
      const next: LiveFold = {
        ...fold,
        tokens_used: p.tokens_used,
        status: p.forced ? "forced" : "returned",
        reason: p.reason,
        message: p.message,
      };
      effects.onMessagesChanged();
      return { ...snapshot, folds: { ...snapshot.folds, [p.fold_id]: next } };
    }
    case "fold_tool":
      // a fold's call waits for a person, or was decided: its approval is on the fold's steps
      // (GET /folds), where the fold card shows it with Approve / Deny while it waits
      effects.onMessagesChanged();
      return snapshot;
    case "tool_progress": {
      const { tool_call_id, message } = event.payload;
      return { ...snapshot, toolProgress: { ...snapshot.toolProgress, [tool_call_id]: message } };
    }
    case "parallel_started":
    case "candidate_delta":
    case "candidate_tool":
    case "candidate_finished":
      return { ...snapshot, parallel: applyParallel(snapshot.parallel, event) };
    case "parallel_verdict":
      // the chosen answer joins the branch and the others become branches
      effects.onMessagesChanged();
      effects.onSessionChanged();
      return { ...snapshot, parallel: applyParallel(snapshot.parallel, event) };
    case "subagent_update":
      return { ...snapshot, subAgents: applySubAgent(snapshot.subAgents, event.payload) };
    default: {
      const unknown: never = event;
      return unknown;
    }
  }
}

/**
 * The folds to show: the fetched ones (with their steps) updated by what the events said since,
 * and the ones only the events know of yet (no steps fetched).
 */
export function mergeFolds(
  fetched: readonly FoldView[],
  live: Readonly<Record<string, LiveFold>>,
): FoldView[] {
  const out = fetched.map((fold): FoldView => {
    const seen = live[fold.fold_id];
    // the fetched list is the authority once it has the fold's end
    if (!seen || fold.status !== "running") return fold;
    return {
      ...fold,
      status: seen.status,
      reason: seen.reason,
      tokens_used: Math.max(fold.tokens_used, seen.tokens_used),
      warned: fold.warned || seen.warned,
      message: seen.message ?? fold.message,
    };
  });
  const known = new Set(fetched.map((f) => f.fold_id));
  for (const seen of Object.values(live)) {
    if (known.has(seen.fold_id)) continue;
    out.push({
      fold_id: seen.fold_id,
      parent_fold_id: seen.parent_fold_id,
      depth: seen.depth,
      description: seen.description,
      budget: seen.budget,
      timeout_seconds: 0,
      loop_id: seen.loop_id,
      tool_call_id: seen.tool_call_id,
      injected_memory_ids: [],
      status: seen.status,
      reason: seen.reason,
      tokens_used: seen.tokens_used,
      warned: seen.warned,
      message: seen.message ?? null,
      steps: [],
    });
  }
  return out;
}

function applySubAgent(
  all: Readonly<Record<string, LiveSubAgent>>,
  update: SubAgentUpdate,
): Readonly<Record<string, LiveSubAgent>> {
  const current: LiveSubAgent = all[update.tool_call_id] ?? {
    tool_call_id: update.tool_call_id,
    tool_name: update.tool_name,
    loop_id: update.loop_id,
    text: "",
    progress: [],
    status: "running",
    turns: 0,
    usage: undefined,
    approvals: [],
  };
  let next: LiveSubAgent;
  switch (update.kind) {
    case "started":
      next = { ...current, loop_id: update.loop_id };
      break;
    case "text":
      next = { ...current, text: current.text + update.delta };
      break;
    case "progress":
      next = { ...current, progress: [...current.progress, update.text] };
      break;
    case "ended":
      next = { ...current, status: update.status, turns: update.turns, usage: update.usage };
      break;
    case "approval": {
      const known = current.approvals.find((a) => a.call_id === update.call_id);
      const approval: LiveSubAgentApproval = {
        call_id: update.call_id,
        call_name: update.call_name,
        arguments: update.arguments ?? known?.arguments ?? {},
        status: update.status,
        cancelled: update.cancelled === true,
        ...(update.decided_by ? { decided_by: update.decided_by } : {}),
      };
      next = {
        ...current,
        approvals: known
          ? current.approvals.map((a) => (a.call_id === update.call_id ? approval : a))
          : [...current.approvals, approval],
      };
      break;
    }
    default:
      return update satisfies never;
  }
  return { ...all, [update.tool_call_id]: next };
}
