import type { AgentEvent, Logger } from "../agent/types.js";
import {
  type AgentMessage,
  type AssistantMessage,
  combineUsage,
  emptyUsage,
  type StopReason,
} from "../model/llm-messages.js";
import {
  isTerminalStatus,
  type LoopConfigSnapshot,
  type LoopRecord,
  type LoopStatus,
  type ParallelGroupRecord,
  type SessionLoopTree,
  type SpawnRef,
} from "../model/loop-records.js";
import { type LoopRecordSink, SerializedSinkWriter } from "./sink.js";

// REQ-214 / REQ-221: turns the agent's event stream into loop records and session trees.
// Formation policy "per session id": a session is created by the first agentStart naming its
// sessionId, and every loop whose agentStart names that id joins it. Events are routed by loopId,
// so interleaved events of parallel loops and sub-agents land on the right record.

export interface LoopRecorderOptions {
  /** receives every changed record (start, each turnEnd, link changes, end) */
  sink?: LoopRecordSink;
  /** sink failures and out-of-order events are reported here (console when absent) */
  logger?: Logger;
  /** clock for abandon(); events carry their own timestamps. Default Date.now */
  now?: () => number;
  /** gather a loop's record changes for this long before writing them (see SerializedSinkWriter) */
  writeDelayMs?: number;
}

/** A parent's tool call that named a child loop before the recorder saw the child start. */
interface PendingChildLink {
  parentLoopId: string;
  toolCallId: string;
  toolName: string;
}

type EventOf<T extends AgentEvent["type"]> = Extract<AgentEvent, { type: T }>;

export class LoopRecorder {
  readonly #sessions = new Map<string, SessionLoopTree>();
  /** the same record objects as in #sessions, indexed by loop id */
  readonly #loops = new Map<string, LoopRecord>();
  readonly #pendingChildLinks = new Map<string, PendingChildLink>();
  /** REQ-213: parallel groups by group id, and the group of each branch loop id */
  readonly #groups = new Map<string, ParallelGroupRecord>();
  readonly #groupOfBranch = new Map<string, string>();
  readonly #writer: SerializedSinkWriter | undefined;
  readonly #logger: Logger | undefined;
  readonly #now: () => number;

  constructor(options: LoopRecorderOptions = {}) {
    this.#logger = options.logger;
    this.#now = options.now ?? Date.now;
    this.#writer = options.sink
      ? new SerializedSinkWriter(options.sink, {
          ...(options.logger ? { logger: options.logger } : {}),
          ...(options.writeDelayMs !== undefined ? { delayMs: options.writeDelayMs } : {}),
        })
      : undefined;
  }

  /**
   * Records one event. Never throws: the recorder usually sits in an agent's event subscriber,
   * and a recording fault must not break the run it records.
   */
  onEvent(event: AgentEvent): void {
    try {
      this.#route(event);
    } catch (error) {
      this.#log("error", "loop recorder failed on an event", {
        eventType: event.type,
        loopId: event.loopId,
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }

  /**
   * Closes a loop whose agentEnd will never come (the stream broke, beforeTurn stopped the run,
   * the process is shutting down) with status "error". Returns false when the loop is unknown or
   * already closed. A late agentEnd still overwrites it with the real outcome.
   */
  abandon(loopId: string, reason: string): boolean {
    const record = this.#loops.get(loopId);
    if (!record || isTerminalStatus(record.status)) return false;
    const endedAt = this.#now();
    record.status = "error";
    record.error = reason;
    record.endedAt = endedAt;
    record.durationMs = Math.max(0, endedAt - record.startedAt);
    this.#write(record);
    return true;
  }

  /**
   * The loop's run returned `messages`. A loop that ended with agentEnd is closed already and
   * stays as it is (returns false). A loop stopped by its beforeTurn hook emits no agentEnd
   * (REQ-091): a session stops its run that way when the model asked a question or presented a
   * plan, or at the auto-loop limit. Its record is closed here as its agentEnd would have
   * closed it: the outcome of its last answer, the messages it added, its turns' usage.
   */
  returned(loopId: string, messages: readonly AgentMessage[]): boolean {
    const record = this.#loops.get(loopId);
    if (!record || isTerminalStatus(record.status)) return false;
    this.#onAgentEnd({
      type: "agentEnd",
      loopId,
      messages: [...messages],
      usage: emptyUsage(),
      timestamp: Math.max(this.#now(), record.startedAt),
    });
    return true;
  }

  /** Resolves once every sink write scheduled so far has settled (succeeded or been logged). */
  async flush(): Promise<void> {
    await this.#writer?.flush();
  }

  /** A copy of the session as recorded so far. */
  getSession(sessionId: string): SessionLoopTree | undefined {
    const session = this.#sessions.get(sessionId);
    return session ? structuredClone(session) : undefined;
  }

  /** Copies of every session in memory, in order of creation. */
  sessions(): SessionLoopTree[] {
    return [...this.#sessions.values()].map((session) => structuredClone(session));
  }

  /** A copy of one loop's record. */
  getLoop(loopId: string): LoopRecord | undefined {
    const record = this.#loops.get(loopId);
    return record ? structuredClone(record) : undefined;
  }

  /**
   * Drops settled sessions from memory (they live on in the sink) and returns their ids. A
   * session is settled when all its loops are closed and every parent loop of another session
   * that spawned one of them is closed too: until then the parent's toolExecutionEnd may still
   * arrive to enrich the SpawnRef (REQ-221), so the child session is kept even if flushed.
   * `keep` keeps the sessions it returns true for (SessionManager: the ones still cached there).
   * A later loop of a released session is recorded as after a restart: its record names its
   * parent loop, and the tree is built from those names (session-tree.ts).
   */
  releaseSettled(keep: (sessionId: string) => boolean = () => false): string[] {
    const released: string[] = [];
    for (const session of this.#sessions.values()) {
      if (keep(session.sessionId)) continue;
      const settled = session.loops.every(
        (loop) => isTerminalStatus(loop.status) && !this.#hasOpenParentElsewhere(loop),
      );
      if (settled) released.push(session.sessionId);
    }
    for (const sessionId of released) {
      const session = this.#sessions.get(sessionId);
      for (const loop of session?.loops ?? []) {
        this.#loops.delete(loop.loopId);
        this.#pendingChildLinks.delete(loop.loopId);
      }
      this.#sessions.delete(sessionId);
    }
    return released;
  }

  #route(event: AgentEvent): void {
    switch (event.type) {
      case "agentStart":
        this.#onAgentStart(event);
        return;
      case "turnStart":
        this.#onTurnStart(event);
        return;
      case "turnEnd":
        this.#onTurnEnd(event);
        return;
      case "toolExecutionEnd":
        if (event.childLoopId !== undefined) this.#onChildToolEnd(event, event.childLoopId);
        return;
      case "agentEnd":
        this.#onAgentEnd(event);
        return;
      // Streaming detail: the record keeps outcomes, not the event log (that is the store's).
      case "messageStart":
      case "messageUpdate":
      case "messageEnd":
      case "toolExecutionStart":
      case "toolExecutionUpdate":
      case "progressMessage":
      case "inputRejected":
      case "retry":
      case "compaction":
        return;
      case "parallelLoopStart":
        this.#onParallelStart(event);
        return;
      case "parallelLoopEnd":
        this.#onParallelEnd(event);
        return;
      default:
        event satisfies never;
    }
  }

  #onAgentStart(event: EventOf<"agentStart">): void {
    if (this.#loops.has(event.loopId)) {
      this.#log("warn", "duplicate agentStart ignored", { loopId: event.loopId });
      return;
    }
    let session = this.#sessions.get(event.sessionId);
    if (!session) {
      session = { sessionId: event.sessionId, agentId: event.agentId, loops: [] };
      this.#sessions.set(event.sessionId, session);
    }
    const record: LoopRecord = {
      loopId: event.loopId,
      sessionId: event.sessionId,
      agentId: event.agentId,
      status: "running",
      startedAt: event.timestamp,
      usage: emptyUsage(),
      turns: 0,
      messages: [],
      childLoopIds: [],
      childLoopRefs: [],
    };
    if (event.parentLoopId === event.loopId) {
      // a loop is never its own parent: such a record would vanish from the tree (no root, and
      // only its own child)
      this.#log("warn", "a loop named itself as its parent; recorded without a parent", {
        loopId: event.loopId,
      });
    } else if (event.parentLoopId !== undefined) record.parentLoopId = event.parentLoopId;
    if (event.continuationKind !== undefined) record.continuationKind = event.continuationKind;
    if (event.startedBy !== undefined) record.startedBy = event.startedBy;
    if (event.traceparent !== undefined) record.traceparent = event.traceparent;
    const groupId = this.#groupOfBranch.get(event.loopId);
    const group = groupId === undefined ? undefined : this.#groups.get(groupId);
    if (group !== undefined) record.parallelGroup = { ...group, loopIds: [...group.loopIds] };
    session.loops.push(record);
    this.#loops.set(record.loopId, record);

    const parent =
      record.parentLoopId === undefined ? undefined : this.#loops.get(record.parentLoopId);
    if (parent) {
      pushUnique(parent.childLoopIds, record.loopId);
      if (parent.sessionId !== record.sessionId) this.#setSpawnRef(parent, record, undefined);
      this.#write(parent);
    }
    const pending = this.#pendingChildLinks.get(record.loopId);
    if (pending) {
      this.#pendingChildLinks.delete(record.loopId);
      const pendingParent = this.#loops.get(pending.parentLoopId);
      if (pendingParent) {
        const { toolCallId, toolName } = pending;
        this.#linkChild(pendingParent, record, { toolCallId, toolName });
      }
    }
    this.#write(record);
  }

  /** A parallel group starts: its branches' records will carry it (REQ-213). */
  #onParallelStart(event: EventOf<"parallelLoopStart">): void {
    this.#groups.set(event.loopId, {
      groupId: event.loopId,
      loopIds: [...event.loopIds],
      isSelected: false,
    });
    for (const id of event.loopIds) this.#groupOfBranch.set(id, event.loopId);
  }

  /** The group's choice: every branch's record learns it, the chosen one is marked. */
  #onParallelEnd(event: EventOf<"parallelLoopEnd">): void {
    const group = this.#groups.get(event.loopId);
    if (group === undefined) {
      this.#log("warn", "parallelLoopEnd of an unknown group ignored", { loopId: event.loopId });
      return;
    }
    group.selectedLoopId = event.selectedLoopId;
    group.selectedConfigIndex = event.selectedConfigIndex;
    group.evaluationUsage = event.evaluationUsage;
    if (event.evaluationModel !== undefined) group.evaluationModel = event.evaluationModel;
    for (const id of group.loopIds) {
      const record = this.#loops.get(id);
      if (record === undefined) continue;
      record.parallelGroup = {
        ...group,
        loopIds: [...group.loopIds],
        isSelected: id === event.selectedLoopId,
      };
      this.#write(record);
    }
    this.#groups.delete(event.loopId);
    for (const id of group.loopIds) this.#groupOfBranch.delete(id);
  }

  #onTurnStart(event: EventOf<"turnStart">): void {
    const record = this.#known(event);
    if (record) record.turns += 1;
  }

  #onTurnEnd(event: EventOf<"turnEnd">): void {
    const record = this.#known(event);
    if (!record) return;
    record.usage = combineUsage(record.usage, event.message.usage);
    record.config ??= configSnapshot(record, event.message);
    this.#write(record);
  }

  #onChildToolEnd(event: EventOf<"toolExecutionEnd">, childLoopId: string): void {
    const parent = this.#known(event);
    if (!parent) return;
    const call = { toolCallId: event.toolCallId, toolName: event.toolName };
    const child = this.#loops.get(childLoopId);
    if (child) {
      this.#linkChild(parent, child, call);
      return;
    }
    // The child's own events were not (yet) recorded here: keep the id, and finish the link
    // (session ids, SpawnRef) if its agentStart arrives later.
    pushUnique(parent.childLoopIds, childLoopId);
    this.#pendingChildLinks.set(childLoopId, { parentLoopId: parent.loopId, ...call });
    this.#write(parent);
  }

  #onAgentEnd(event: EventOf<"agentEnd">): void {
    const record = this.#known(event);
    if (!record) return;
    const last = lastAssistant(event.messages);
    record.status = last ? statusOf(last.stopReason) : "completed";
    if (last?.errorMessage !== undefined && record.status !== "completed") {
      record.error = last.errorMessage;
    } else if (record.status === "error") {
      record.error = "the run ended with an error";
    } else {
      delete record.error;
    }
    record.messages = event.messages;
    // agentEnd.usage is the loop's own total (it may include calls that are not turns, such as
    // optimization summaries); a loop that reports none keeps the per-turn sum.
    if (event.usage.totalTokens > 0) record.usage = event.usage;
    if (last) record.config ??= configSnapshot(record, last);
    record.endedAt = event.timestamp;
    record.durationMs = Math.max(0, event.timestamp - record.startedAt);
    this.#write(record);
  }

  /** Both directions of a tool call that ran `child` inside `parent` (REQ-212, REQ-221). */
  #linkChild(
    parent: LoopRecord,
    child: LoopRecord,
    call: { toolCallId: string; toolName: string },
  ): void {
    pushUnique(parent.childLoopIds, child.loopId);
    const known = parent.childLoopRefs.some(
      (ref) => ref.childLoopId === child.loopId && ref.toolCallId === call.toolCallId,
    );
    if (!known) {
      parent.childLoopRefs.push({
        ...call,
        childSessionId: child.sessionId,
        childLoopId: child.loopId,
      });
    }
    if (child.parentLoopId === undefined) child.parentLoopId = parent.loopId;
    else if (child.parentLoopId !== parent.loopId) {
      this.#log("warn", "tool call names a child loop that has another parent", {
        childLoopId: child.loopId,
        parentLoopId: child.parentLoopId,
        toolCallLoopId: parent.loopId,
      });
    }
    if (child.sessionId !== parent.sessionId) this.#setSpawnRef(parent, child, call);
    this.#write(parent);
    this.#write(child);
  }

  /** Sets (or enriches with the tool call) the child's SpawnRef and, first time, its session's. */
  #setSpawnRef(
    parent: LoopRecord,
    child: LoopRecord,
    call: { toolCallId: string; toolName: string } | undefined,
  ): void {
    const ref: SpawnRef = {
      parentSessionId: parent.sessionId,
      parentLoopId: parent.loopId,
      parentAgentId: parent.agentId,
      ...(call ?? {}),
    };
    child.spawnRef = { ...child.spawnRef, ...ref };
    const session = this.#sessions.get(child.sessionId);
    if (!session) return;
    const current = session.parentSpawnRef;
    // A session keeps the ref of its first spawn; later calls only enrich that same spawn.
    if (current === undefined || current.parentLoopId === parent.loopId) {
      session.parentSpawnRef = { ...current, ...ref };
    }
  }

  #hasOpenParentElsewhere(loop: LoopRecord): boolean {
    if (loop.parentLoopId === undefined) return false;
    const parent = this.#loops.get(loop.parentLoopId);
    return (
      parent !== undefined &&
      parent.sessionId !== loop.sessionId &&
      !isTerminalStatus(parent.status)
    );
  }

  #known(event: AgentEvent): LoopRecord | undefined {
    const record = this.#loops.get(event.loopId);
    if (!record) {
      // e.g. agentEnd after beforeLoop returned false (no agentStart), or a recorder attached
      // mid-run: nothing to attach the event to.
      this.#log("debug", "event for an unrecorded loop ignored", {
        eventType: event.type,
        loopId: event.loopId,
      });
    }
    return record;
  }

  #write(record: LoopRecord): void {
    this.#writer?.write(record);
  }

  #log(level: "debug" | "warn" | "error", message: string, fields: Record<string, unknown>): void {
    if (this.#logger) this.#logger[level](message, fields);
    else if (level !== "debug") console.error(`[arbor] ${message}`, fields);
  }
}

function statusOf(stopReason: StopReason): LoopStatus {
  switch (stopReason) {
    case "error":
      return "error";
    case "aborted":
      return "aborted";
    case "stop":
    case "length":
    case "toolUse":
      return "completed";
    default:
      return stopReason satisfies never;
  }
}

function lastAssistant(messages: readonly AgentMessage[]): AssistantMessage | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i];
    if (message?.role === "assistant") return message;
  }
  return undefined;
}

function configSnapshot(record: LoopRecord, message: AssistantMessage): LoopConfigSnapshot {
  const snapshot: LoopConfigSnapshot = { model: message.model, provider: message.provider };
  const configId = configIdOf(record.loopId, record.sessionId);
  if (configId !== undefined) snapshot.configId = configId;
  return snapshot;
}

/** REQ-187: loop ids read "{sessionId}.{configId}.{N}"; anything else has no config id. */
export function configIdOf(loopId: string, sessionId: string): string | undefined {
  const prefix = `${sessionId}.`;
  if (!loopId.startsWith(prefix)) return undefined;
  const match = /^(.+)\.\d+$/.exec(loopId.slice(prefix.length));
  return match?.[1];
}

function pushUnique(list: string[], value: string): void {
  if (!list.includes(value)) list.push(value);
}
