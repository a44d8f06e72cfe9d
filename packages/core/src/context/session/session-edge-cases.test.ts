import { describe, expect, it } from "vitest";
import {
  call,
  collect,
  errors,
  harness,
  say,
  stateData,
  states,
  tempWorkspace,
} from "../../../test/support/session-harness.js";
import type { Logger } from "../../agent/types.js";
import type { SessionEvent } from "../../protocol/events.js";
import { InMemorySessionStore } from "../../store/memory-store.js";
import type { LoadedSession } from "../../store/types.js";
import type { MessageProcessor } from "../pipeline.js";
import { createProcessorRegistry, type ProcessorRegistry } from "../processor-registry.js";
import { STATE_TRANSITIONS } from "../state-machine.js";
import type { ContextSession } from "./context-session.js";

// Edge cases of the spec's "Edge case testing" list that need a whole session: many file
// references, rapid transitions, corrupted data; and interrupts that land before the loop starts.

function texts(session: ContextSession): string[] {
  return session.messages().messages.map((m) => {
    switch (m.body.message_type) {
      case "text":
        return m.body.text;
      case "file_reference":
        return `file:${m.body.path}`;
      case "system_control":
        return `${m.body.kind}:${m.body.text}`;
      default:
        return m.body.message_type;
    }
  });
}

/**
 * What a database store returns for a damaged session: a row it could not parse, and a branch
 * naming a message that is not in the pool.
 */
class DamagedStore extends InMemorySessionStore {
  damaged = false;

  override async loadSession(id: string): Promise<LoadedSession | undefined> {
    const loaded = await super.loadSession(id);
    if (!loaded || !this.damaged) return loaded;
    loaded.branches[0]?.message_ids.splice(1, 0, "missing-message");
    loaded.corrupt.push({
      session_id: id,
      table: "message",
      row_id: "row-17",
      error: "body does not parse",
    });
    return loaded;
  }
}

describe("Edge case testing", () => {
  it("messages with many file references (>20): 25 references in a row, each resolved, order kept", async () => {
    const names = Array.from({ length: 25 }, (_, i) => `f${String(i).padStart(2, "0")}.txt`);
    const workspace = tempWorkspace(Object.fromEntries(names.map((n) => [n, `content of ${n}\n`])));
    const h = harness((r) => say(`read ${r.index}`), { tools: () => [] });
    const session = await h.manager.create({ config: { workspace } });
    // fired back to back: the queue keeps them in call order
    const runs = await Promise.all(
      names.map((path) => collect(session.sendMessage({ type: "file_reference", path }))),
    );
    for (const events of runs) {
      expect(states(events)).toEqual([
        "ProcessingUserMessage",
        "ResolvingFileReferences",
        "EnhancingSystemPrompt",
        "OptimizingContext",
        "PreparingLLMRequest",
        "ConnectingToLLM",
        "AwaitingLLMFirstChunk",
        "StreamingLLMResponse",
        "ProcessingLLMResponse",
        "Idle",
      ]);
      expect(errors(events)).toEqual([]);
    }
    const refs = session
      .messages()
      .messages.filter((m) => m.body.message_type === "file_reference");
    expect(refs.map((m) => m.body.message_type === "file_reference" && m.body.path)).toEqual(names);
    for (const [i, ref] of refs.entries()) {
      expect(ref.body.message_type === "file_reference" && ref.body.resolved?.content).toBe(
        `content of ${names[i]}`,
      );
    }
    // the last request carries every reference, in order, each with its header
    const last = h.provider.requests.at(-1)!;
    const sent = last.messages.flatMap((m) =>
      m.role === "user" && m.content[0]?.type === "text" ? [m.content[0].text] : [],
    );
    expect(sent.map((t) => t.split("\n")[0])).toEqual(names.map((n) => `File: ${n} (line 1)`));
    expect(h.provider.requests).toHaveLength(25);
  });

  it("rapid state transitions: operations fired back to back apply in order, history consistent", async () => {
    const h = harness([
      say("one"),
      call("echo", { text: "x" }, "c1"),
      say("two"),
      say("three"),
      say("four"),
    ]);
    const session = await h.manager.create({
      config: { approval_policy: { type: "white_list", tools: ["echo"] } },
    });
    // nothing awaited between the calls: each is queued behind the previous one
    const fired = [
      collect(session.sendMessage({ type: "text", text: "a" })),
      collect(session.resume()), // invalid: nothing is paused
      collect(session.sendMessage({ type: "text", text: "b" })),
      collect(session.decideToolCalls([{ tool_call_id: "c1", decision: "approve" }])), // invalid
      collect(session.switchMode("plan")),
      collect(session.sendMessage({ type: "text", text: "c" })),
      collect(session.switchMode("act")),
      collect(session.optimize()),
      collect(session.sendMessage({ type: "text", text: "d" })),
    ];
    const results = await Promise.all(fired);
    expect(results.map((events) => errors(events).map((e) => e.code))).toEqual([
      [],
      ["invalid_transition"],
      [],
      ["invalid_transition"],
      [],
      [],
      [],
      [],
      [],
    ]);
    // the refusals changed nothing and were not stored
    expect(results[1]!.map((e) => e.sequence)).toEqual([0]);
    expect(results[3]!.map((e) => e.sequence)).toEqual([0]);
    // one increasing sequence across the operations, in call order
    const sequences = results.flat().flatMap((e) => (e.sequence === 0 ? [] : [e.sequence]));
    expect(sequences).toEqual(sequences.map((_, i) => sequences[0]! + i));
    expect(texts(session)).toEqual([
      "a",
      "one",
      "b",
      "tool_request",
      "tool_result",
      "two",
      "mode_change:Switched to Plan mode.",
      "c",
      "three",
      "mode_change:Switched to Act mode.",
      "d",
      "four",
    ]);
    // the history is one unbroken chain of moves the table allows, with no reset in it
    const history = session.transitions;
    for (const [i, record] of history.entries()) {
      expect(record.kind).toBe("transition");
      expect(STATE_TRANSITIONS[record.from.type]).toContain(record.to.type);
      if (i > 0) expect(record.from).toEqual(history[i - 1]!.to);
    }
    // and it is exactly what the stored events say happened
    const stored = await h.store.readEvents(session.id, 0);
    const storedMoves = stored.flatMap((row) => {
      const p = row.payload as {
        previous_state?: { type: string };
        current_state: { type: string };
      };
      return row.name === "context_update" && p.previous_state ? [p.current_state.type] : [];
    });
    expect(storedMoves).toEqual(history.map((r) => r.to.type));
    expect(session.state).toEqual({ type: "Idle" });
  });

  it("corrupted data: corrupt rows are reported, a dangling message id is skipped, the rest works", async () => {
    const store = new DamagedStore();
    const first = harness([say("one")], { store });
    const created = await first.manager.create();
    await collect(created.sendMessage({ type: "text", text: "a" }));
    const warnings: Array<{ message: string; fields: Record<string, unknown> }> = [];
    const logger: Logger = {
      debug() {},
      info() {},
      warn(message, fields) {
        warnings.push({ message, fields: fields ?? {} });
      },
      error(message, fields) {
        warnings.push({ message, fields: fields ?? {} });
      },
    };
    store.damaged = true;
    const second = harness([say("two")], { store, logger });
    const session = (await second.manager.get(created.id))!;
    expect(session.state.type).toBe("Idle");
    expect(warnings).toContainEqual({
      message: "skipping a corrupt stored row",
      fields: {
        session_id: created.id,
        table: "message",
        row_id: "row-17",
        error: "body does not parse",
      },
    });
    expect(texts(session)).toEqual(["a", "one"]);
    expect(warnings.map((w) => w.fields.message)).toContain("missing-message");
    const events = await collect(session.sendMessage({ type: "text", text: "b" }));
    expect(errors(events)).toEqual([]);
    expect(states(events).at(-1)).toBe("Idle");
    expect(texts(session)).toEqual(["a", "one", "b", "two"]);
    const sent = second.provider.requests[0]!.messages.map((m) => m.role);
    expect(sent).toEqual(["user", "assistant", "user"]);
  });
});

/** A registry whose tool_enhancement processor waits for `release` (an interrupt mid-pipeline). */
function gatedPipeline(): { registry: ProcessorRegistry; entered: Promise<void>; release(): void } {
  const inner = createProcessorRegistry();
  let release!: () => void;
  let markEntered!: () => void;
  const gate = new Promise<void>((r) => {
    release = r;
  });
  const entered = new Promise<void>((r) => {
    markEntered = r;
  });
  const wrap = (p: MessageProcessor): MessageProcessor =>
    p.name !== "tool_enhancement"
      ? p
      : {
          name: p.name,
          process: async (message, ctx) => {
            markEntered();
            await gate;
            return p.process(message, ctx);
          },
        };
  const registry: ProcessorRegistry = {
    get: (name) => {
      const p = inner.get(name);
      return p && wrap(p);
    },
    names: () => inner.names(),
    register: (p) => inner.register(p),
    compose: (config) => {
      const composed = inner.compose(config);
      return composed.ok ? { ok: true, processors: composed.processors.map(wrap) } : composed;
    },
  };
  return { registry, entered, release };
}

function metadataOf(events: readonly SessionEvent[]): Record<string, unknown>[] {
  return events.flatMap((e) =>
    e.name === "context_update" && e.payload.previous_state ? [e.payload.metadata] : [],
  );
}

describe("Interrupt before the loop starts", () => {
  it("interrupted during pipeline processing: rolls back cleanly, message not stored, no error", async () => {
    const gated = gatedPipeline();
    const h = harness([say("after the rollback")], { processors: gated.registry });
    const session = await h.manager.create();
    const sending = collect(session.sendMessage({ type: "text", text: "never stored" }));
    await gated.entered;
    const interrupting = collect(session.interrupt());
    gated.release();
    const events = await sending;
    await interrupting;
    expect(states(events)).toEqual(["ProcessingUserMessage", "EnhancingSystemPrompt", "Idle"]);
    expect(metadataOf(events).at(-1)).toEqual({
      rolled_back: true,
      interrupted: true,
      processor: "tool_enhancement",
    });
    expect(errors(events)).toEqual([]);
    expect(session.messages().messages).toEqual([]);
    expect(h.provider.requests).toHaveLength(0);
    expect(session.state).toEqual({ type: "Idle" });
    // nothing is paused, and the session takes the next message as usual
    expect(errors(await collect(session.resume())).map((e) => e.code)).toEqual([
      "invalid_transition",
    ]);
    const next = await collect(session.sendMessage({ type: "text", text: "again" }));
    expect(states(next).at(-1)).toBe("Idle");
    expect(texts(session)).toEqual(["again", "after the rollback"]);
  });

  it("interrupted once the message is stored: Paused{interrupted} with the message kept, resume sends it", async () => {
    let interruptOnWrite: ((messageIds: string[]) => void) | undefined;
    const store = new InMemorySessionStore({
      faults: (op) => {
        if (op.kind === "write") interruptOnWrite?.((op.write.messages ?? []).map((m) => m.id));
        return undefined;
      },
    });
    const h = harness([{ ...say("answer after resume"), chunkSize: 100 }], { store });
    const session = await h.manager.create();
    let interrupting: Promise<SessionEvent[]> | undefined;
    interruptOnWrite = (ids) => {
      // the write that stores the user's message: interrupt right as it lands
      const user = ids.length === 1 && ids[0] !== undefined;
      if (user && interrupting === undefined) interrupting = collect(session.interrupt());
    };
    const events = await collect(session.sendMessage({ type: "text", text: "kept" }));
    interruptOnWrite = undefined;
    await interrupting;
    expect(states(events)).toEqual([
      "ProcessingUserMessage",
      "EnhancingSystemPrompt",
      "OptimizingContext",
      "Interrupting",
      "Paused",
    ]);
    expect(stateData(events).at(-1)).toEqual({ type: "Paused", reason: "interrupted" });
    expect(errors(events)).toEqual([]);
    expect(texts(session)).toEqual(["kept", "interrupted:Interrupted by the user."]);
    expect(h.provider.requests).toHaveLength(0);
    const resumed = await collect(session.resume());
    expect(states(resumed)).toEqual([
      "PreparingLLMRequest",
      "ConnectingToLLM",
      "AwaitingLLMFirstChunk",
      "StreamingLLMResponse",
      "ProcessingLLMResponse",
      "Idle",
    ]);
    const sent = h.provider.requests[0]!.messages;
    expect(sent.map((m) => m.role)).toEqual(["user"]);
    expect(texts(session).at(-1)).toBe("answer after resume");
  });
});
