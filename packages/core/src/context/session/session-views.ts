import { costOfUsage } from "../../llm/pricing.js";
import type { Branch } from "../../model/branch.js";
import type { PendingMerge } from "../../model/merge-types.js";
import type { ContextMessage, MessageType } from "../../model/message-types.js";
import type { SessionConfig } from "../../model/session-config.js";
import type { ContextState } from "../../model/states.js";
import { withUsageCost } from "../../model/usage-cost.js";
import type { SessionEvent } from "../../protocol/events.js";
import type { ContextUsage } from "../../protocol/http-responses.js";
import type { ParallelMessageRequest } from "../../protocol/parallel.js";
import type { MessagePayload } from "../../protocol/requests.js";
import type { OptimizationView } from "../../store/types.js";
import {
  type ListWorkspaceFilesOptions,
  listWorkspaceFiles,
} from "../../tools/builtin/workspace-files.js";
import { toolDefinition } from "../../tools/tool.js";
import { countRequestTokens, optimizationTarget } from "../optimization/request-tokens.js";
import type { TransitionRecord } from "../state-machine.js";
import { MAX_INSTRUCTION_CHARS, type WorkspaceInstructions } from "../workspace-instructions.js";
import { queuedMessages } from "./message-queue.js";
import { type MessageMatch, searchMessages } from "./message-search.js";
import type { CoreRef } from "./operation-runner.js";
import { type ParallelRequestProblem, parallelRequestProblem } from "./parallel-config.js";
import { instructionsFor, turnSetup } from "./send-message.js";
import { type FoldView, listFolds } from "./session-folds.js";
import { branchRecords, currentView } from "./session-optimization.js";
import { followEvents, replayEvents } from "./stored-events.js";
import type { StoredSession } from "./stored-session.js";

// What a Session shows without changing anything (docs/decisions/0067): its state and settings,
// a branch's messages, the context usage of the next request, the event stream from a sequence
// on, search, folds, and why a payload would be refused before anything is stored. SessionViews
// is the read side of the Session facade (session.ts extends it); nothing here is queued.

export interface MessagesView {
  view: "full" | "optimized";
  messages: ContextMessage[];
  /** messages sent while the agent worked, not delivered yet, oldest first (message-queue.ts) */
  queued: ContextMessage[];
  /** the branch's optimization records: what each summary replaced (for "show" in the UI) */
  optimizations: OptimizationView[];
}

/** See Session.contextUsage. */
export function contextUsageOf(core: StoredSession): ContextUsage {
  const setup = turnSetup(core);
  const tokens = countRequestTokens({
    systemPrompt: setup.systemPrompt,
    tools: setup.tools.map(toolDefinition),
    messages: currentView(core),
  });
  const window = core.config.model?.context_window ?? core.deps.model().contextWindow ?? 100_000;
  const { optimization } = core.config;
  // in the provider's tokens where it has told us (token-calibration.ts)
  const scale = (n: number) => core.tokens.scale(n);
  const systemPrompt = scale(tokens.systemPrompt);
  const tools = scale(tokens.tools);
  const messages = scale(tokens.messages);
  return {
    system_prompt: systemPrompt,
    tools,
    fixed: systemPrompt + tools,
    messages,
    total: systemPrompt + tools + messages,
    counted_by: core.tokens.source,
    context_window: window,
    trigger: Math.floor(optimization.trigger_ratio * window),
    target: optimizationTarget(optimization, window),
  };
}

/** See Session.messages. */
export function messagesOf(
  core: StoredSession,
  options: { branchId?: string; view?: "full" | "optimized"; types?: readonly MessageType[] },
): MessagesView {
  const branchId = options.branchId ?? core.activeBranchId;
  const view = options.view ?? "full";
  const listed = view === "full" ? core.branchMessages(branchId) : currentView(core, branchId);
  const types = options.types === undefined ? undefined : new Set(options.types);
  const chosen =
    types === undefined ? listed : listed.filter((m) => types.has(m.body.message_type));
  return {
    view,
    // rows stored before the cost sat beside the tokens get it now (meta.cost_usd, else the
    // price: model/usage-cost.ts); the store keeps the rows as written
    messages: chosen.map((message) => {
      if (message.meta === undefined) return message;
      const meta = withUsageCost(message.meta, costOfUsage);
      return meta === message.meta ? message : { ...message, meta };
    }),
    queued: queuedMessages(core),
    optimizations: structuredClone(branchRecords(core, branchId)),
  };
}

/** See Session.events. */
export function eventsOf(core: StoredSession, afterSequence: number): AsyncIterable<SessionEvent> {
  // past the end, the replay would skip every live event up to that sequence (issue #9)
  if (
    !Number.isSafeInteger(afterSequence) ||
    afterSequence < 0 ||
    afterSequence > core.lastSequence
  ) {
    throw new RangeError(
      `afterSequence must be an integer from 0 to ${core.lastSequence}, got ${afterSequence}`,
    );
  }
  const coordinator = core.deps.coordinator;
  // several instances: the session may run elsewhere, so the watcher follows the database
  if (coordinator) {
    return followEvents(core.deps.store, coordinator, core.id, afterSequence, (error) => ({
      ...core.errorEvent("storage", `cannot read events: ${String(error)}`, true),
      sequence: 0,
    }));
  }
  return replayEvents(core, afterSequence);
}

/** A payload field that makes a message unsendable, and why (an HTTP 400 names the field). */
export interface PayloadProblem {
  /** the field inside the payload: `server_name`, `resource_uri`, `prompt_name`, `arguments.x` */
  field: string;
  message: string;
}

/**
 * Why `payload` would be refused before anything is stored, undefined when it would not: an
 * MCP resource or prompt must name a connected, trusted server that lists it (and a prompt gets
 * its required arguments). Asks the session's MCP servers (SessionDeps.mcp) without reading.
 */
export function payloadProblemOf(
  core: StoredSession,
  payload: MessagePayload,
): PayloadProblem | undefined {
  if (payload.type !== "mcp_resource" && payload.type !== "mcp_prompt") return undefined;
  const mcp = core.deps.mcp;
  if (mcp === undefined) {
    return { field: "server_name", message: "this server has no MCP servers configured" };
  }
  if (payload.type === "mcp_resource") {
    return mcp.resourceProblem?.(payload.server_name, payload.resource_uri);
  }
  return mcp.promptProblem?.(payload.server_name, payload.prompt_name, payload.arguments ?? {});
}

/** The read side of a Session (session.ts): nothing here changes the session or waits. */
export class SessionViews {
  /** the session as last read, shared with the Session's parts (forwarding reads it again) */
  protected readonly ref: CoreRef;

  constructor(ref: CoreRef) {
    this.ref = ref;
  }

  get id(): string {
    return this.ref.core.id;
  }
  get title(): string {
    return this.ref.core.title;
  }
  get state(): ContextState {
    return this.ref.core.state;
  }
  get config(): SessionConfig {
    return structuredClone(this.ref.core.config);
  }
  get branches(): Branch[] {
    return structuredClone([...this.ref.core.branches.values()]);
  }
  get activeBranchId(): string {
    return this.ref.core.activeBranchId;
  }
  /** the state machine's transitions, oldest first */
  get transitions(): readonly TransitionRecord[] {
    return this.ref.core.machine.history;
  }
  get pendingMerges(): PendingMerge[] {
    return structuredClone([...this.ref.core.pendingMerges.values()]);
  }
  /** the newest stored event's sequence (0: none yet) */
  get lastSequence(): number {
    return this.ref.core.lastSequence;
  }
  /** The workspace's files for a picker (see listWorkspaceFiles); none without a workspace. */
  async listFiles(options: ListWorkspaceFilesOptions = {}): Promise<string[]> {
    const workspace = this.ref.core.workspace;
    return workspace ? listWorkspaceFiles(workspace.root, options) : [];
  }
  /**
   * The workspace instructions the next request would use (AGENTS.md, CLAUDE.md,
   * .arbor/instructions.md; see workspace-instructions.ts), read now; none without a workspace.
   */
  workspaceInstructions(): WorkspaceInstructions {
    return (
      instructionsFor(this.ref.core) ?? { text: "", files: [], max_chars: MAX_INSTRUCTION_CHARS }
    );
  }
  /** calls held for a person inside the running operation (a fold's, a sub-agent's, a candidate's) */
  get heldNestedCalls(): number {
    return this.ref.core.nestedApprovals.size;
  }
  /**
   * What the active branch's next request would use (issue #15, the usage meter): the fixed part
   * (system prompt and tool definitions) and the optimized view's messages, counted as the
   * optimizer counts them (in the provider's tokens once it has counted: counted_by), with the
   * window's trigger and target.
   */
  contextUsage(): ContextUsage {
    return contextUsageOf(this.ref.core);
  }

  /**
   * A branch's messages in order: every one (`full`) or what the model sees (`optimized`); with
   * `types`, only messages of those types ("Retrieving messages by type"), still in order.
   */
  messages(
    options: {
      branchId?: string;
      view?: "full" | "optimized";
      types?: readonly MessageType[];
    } = {},
  ): MessagesView {
    return messagesOf(this.ref.core, options);
  }

  /**
   * The stored events after `afterSequence`, then the live ones as they happen, with no gap and
   * no duplicate (an SSE reconnect with Last-Event-ID). Ends when the consumer stops (break).
   */
  events(afterSequence = 0): AsyncIterable<SessionEvent> {
    return eventsOf(this.ref.core, afterSequence);
  }

  /**
   * Why `payload` would be refused before anything is stored (an MCP resource or prompt the
   * session's MCP servers do not offer): the payload's field and why; undefined when it would not.
   */
  payloadProblem(payload: MessagePayload): PayloadProblem | undefined {
    return payloadProblemOf(this.ref.core, payload);
  }

  /** A candidate or judge model the request names that cannot be used (no key), before storing. */
  parallelProblem(
    request: Pick<ParallelMessageRequest, "candidates" | "judge">,
  ): ParallelRequestProblem | undefined {
    return parallelRequestProblem(this.ref.core, request);
  }

  /** The messages of every branch holding every word of `words` (searchWords), oldest first. */
  search(words: readonly string[]): MessageMatch[] {
    return searchMessages(this.ref.core.pool.values(), words);
  }

  /** The session's folds (context folding), with their steps, in start order. */
  folds(): Promise<FoldView[]> {
    return listFolds(this.ref.core);
  }
}
