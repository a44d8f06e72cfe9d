import { describe, expect, it } from "vitest";
import type { Branch } from "../../src/model/branch.js";
import { emptyUsage } from "../../src/model/llm-messages.js";
import type { LoopRecord } from "../../src/model/loop-records.js";
import type { PendingMerge } from "../../src/model/merge-types.js";
import type { ContextMessage } from "../../src/model/message-types.js";
import { sessionConfig } from "../../src/model/session-config.js";
import { everyMessageType, sampleSession, textMessage } from "../../src/store/contract-fixtures.js";
import type {
  OptimizationView,
  SessionStore,
  SessionWrite,
  StoreErrorCode,
} from "../../src/store/types.js";

// The behaviour every SessionStore must have (the contract written in types.ts), as a Vitest
// suite. memory-store.test.ts runs it against InMemorySessionStore; the database store runs the
// same function (through the source-only entry @arbor/core/store-contract). It imports vitest, so
// it lives here in test/, never in src/ (no test library is imported from src/).
//
// Defined here beyond types.ts (every store must agree):
// - readEvents / write / deleteSession on an unknown session → StoreError "not_found";
//   loadSession → undefined; listLoops → [] (loops are keyed by their own session id and may
//   belong to a sub-agent's runtime session that has no Context Manager session).
// - An event payload that has a `sequence` field gets the allocated sequence written into it.
// - A write that would leave the session's active branch missing fails with "not_found".
// - Messages keep insertion order in loadSession; loops keep first-upsert order in listLoops.
//
// Corrupt rows are store-specific and not tested here. A store that reads serialized rows must:
// parse every row through the zod schemas; report a row that fails as a CorruptRow {session_id,
// table, row_id, error} in LoadedSession.corrupt (the zod message, naming the field) and leave it
// out of `messages` / `branches` / `optimization_views`; still load everything else; and drop a
// corrupt row's id from branch message lists only in the returned value, never in storage. A
// corrupt session row makes loadSession throw StoreError "invalid" (nothing can be trusted then).
// Old-format message rows are not corrupt: they load through context/legacy.ts.

export interface ContractStore {
  store: SessionStore;
  cleanup?: () => Promise<void>;
}

function sampleLoop(sessionId: string, loopId: string, turns: number): LoopRecord {
  return {
    loopId,
    sessionId,
    agentId: "agent-1",
    status: turns > 1 ? "completed" : "running",
    startedAt: 1_700_000_000_000,
    usage: { ...emptyUsage(), input: turns * 10, totalTokens: turns * 10 },
    turns,
    messages: [{ role: "user", content: [{ type: "text", text: "hi" }], timestamp: 1 }],
    childLoopIds: [],
    childLoopRefs: [],
    config: { model: "m", provider: "p" },
  };
}

function sampleView(sessionId: string, branchId: string, id: string): OptimizationView {
  return {
    id,
    session_id: sessionId,
    branch_id: branchId,
    created_at: "2025-01-01T00:01:00.000Z",
    strategy: "intelligent",
    tokens_before: 120_000,
    tokens_after: 18_000,
    messages_before: 84,
    messages_after: 6,
    summaries: [{ summary_message_id: "m-system", replaces: ["m-text", "m-file"] }],
    dropped: ["m-mcp"],
  };
}

async function expectStoreError(promise: Promise<unknown>, code: StoreErrorCode): Promise<void> {
  await expect(promise).rejects.toMatchObject({ name: "StoreError", code });
}

export function describeSessionStoreContract(
  name: string,
  makeStore: () => Promise<ContractStore>,
): void {
  describe(`SessionStore contract: ${name}`, () => {
    async function withStore(run: (store: SessionStore) => Promise<void>): Promise<void> {
      const { store, cleanup } = await makeStore();
      try {
        await run(store);
      } finally {
        await cleanup?.();
      }
    }

    /** A session holding one message of every type, all on its main branch. */
    async function seeded(store: SessionStore, id = "s1") {
      const { session, branch } = sampleSession(id);
      await store.createSession(session, branch);
      const messages = everyMessageType(id);
      await store.write(id, {
        messages,
        branch_appends: [{ branch_id: branch.id, message_ids: messages.map((m) => m.id) }],
      });
      return { session, branch, messages };
    }

    it("create/load round trip keeps every field, every message body type and config defaults", () =>
      withStore(async (store) => {
        const { session, branch, messages } = await seeded(store);
        const loaded = await store.loadSession(session.id);
        expect(loaded).toBeDefined();
        expect(loaded!.session).toEqual({ ...session, updated_at: loaded!.session.updated_at });
        expect(loaded!.session.config).toEqual(
          sessionConfig({ workspace: "/tmp/ws", system_prompt: "be brief" }),
        );
        expect(loaded!.session.config.agent_mode).toBe("act");
        expect(loaded!.messages).toEqual(messages);
        expect(loaded!.branches).toHaveLength(1);
        expect(loaded!.branches[0]).toEqual({
          ...branch,
          message_ids: messages.map((m) => m.id),
          updated_at: loaded!.branches[0]!.updated_at,
        });
        expect(loaded!.optimization_views).toEqual([]);
        expect(loaded!.corrupt).toEqual([]);
      }));

    it("callers cannot mutate stored state through written or loaded objects", () =>
      withStore(async (store) => {
        const { session } = sampleSession("s1");
        const { branch } = sampleSession("s1");
        await store.createSession(session, branch);
        const message = textMessage("s1", "a", "original");
        await store.write("s1", { messages: [message] });
        message.body = { message_type: "text", text: "changed after write" };
        session.title = "changed";
        const first = await store.loadSession("s1");
        first!.messages[0]!.status = "failed";
        first!.branches[0]!.message_ids.push("x");
        const second = await store.loadSession("s1");
        expect(second!.messages[0]!.body).toEqual({ message_type: "text", text: "original" });
        expect(second!.messages[0]!.status).toBe("complete");
        expect(second!.branches[0]!.message_ids).toEqual([]);
        expect(second!.session.title).toBe("Session s1");
      }));

    it("lists sessions newest first with message counts and assistant usage summed", () =>
      withStore(async (store) => {
        for (const [id, at] of [
          ["old", "2025-01-01T00:00:00.000Z"],
          ["mid", "2025-01-02T00:00:00.000Z"],
          ["new", "2025-01-03T00:00:00.000Z"],
        ] as const) {
          const { session, branch } = sampleSession(id, { at });
          await store.createSession(session, branch);
        }
        expect((await store.listSessions()).map((s) => s.id)).toEqual(["new", "mid", "old"]);
        // writing to a session makes it the most recently updated
        const messages = everyMessageType("old");
        await store.write("old", {
          messages,
          session: { state: { type: "Paused", reason: "interrupted" } },
        });
        const list = await store.listSessions();
        expect(list.map((s) => s.id)).toEqual(["old", "new", "mid"]);
        expect(list[0]).toMatchObject({
          id: "old",
          title: "Session old",
          state: { type: "Paused", reason: "interrupted" },
          message_count: messages.length,
          // m-request (126) + m-plan (60); the question has no usage, user/tool rows never count
          // only m-request has a known cost: m-plan's tokens are not priced
          usage: {
            input: 150,
            output: 30,
            cacheRead: 5,
            cacheWrite: 1,
            totalTokens: 186,
            cost_usd: 0.00060525,
            cost_complete: false,
          },
        });
        // nothing spent costs nothing
        expect(list[1]).toMatchObject({
          message_count: 0,
          usage: { ...emptyUsage(), cost_usd: 0, cost_complete: true },
        });
      }));

    it("counts a session's messages without its folds' steps (they count for usage)", () =>
      withStore(async (store) => {
        const { session, branch } = sampleSession("folded");
        await store.createSession(session, branch);
        const usage = { input: 10, output: 5, cacheRead: 0, cacheWrite: 0, totalTokens: 15 };
        await store.write("folded", {
          messages: [
            textMessage("folded", "q1"),
            textMessage("folded", "a1", "answer", { role: "assistant", meta: { usage } }),
            // a fold's steps: stored on no branch with meta.fold_id (context folding)
            textMessage("folded", "f1", "fold prompt", { meta: { fold_id: "fold-1" } }),
            textMessage("folded", "f2", "fold answer", {
              role: "assistant",
              meta: { fold_id: "fold-1", loop_id: "l.fold.1", usage },
            }),
          ],
          branch_appends: [{ branch_id: branch.id, message_ids: ["q1", "a1"] }],
        });
        const [listed] = await store.listSessions();
        expect(listed).toMatchObject({ id: "folded", message_count: 2 });
        expect(listed?.usage.totalTokens).toBe(30);
      }));

    it("counts a user message whose client_metadata has a key named fold_id (issue #26)", () =>
      withStore(async (store) => {
        const { session, branch } = sampleSession("tagged");
        await store.createSession(session, branch);
        await store.write("tagged", {
          messages: [
            // a client's own tags: not a fold's step, whatever their names
            {
              ...textMessage("tagged", "q1"),
              client_metadata: { fold_id: "my-folder-7", nested: { fold_id: 1 } },
            },
            {
              ...textMessage("tagged", "q2", "with meta", { meta: { loop_id: "l.1" } }),
              client_metadata: { fold_id: "x" },
            },
            textMessage("tagged", "a1", "answer", { role: "assistant" }),
            // a real fold step beside them is still left out
            textMessage("tagged", "f1", "fold prompt", { meta: { fold_id: "fold-1" } }),
          ],
          branch_appends: [{ branch_id: branch.id, message_ids: ["q1", "q2", "a1"] }],
        });
        const [listed] = await store.listSessions();
        expect(listed).toMatchObject({ id: "tagged", message_count: 3 });
      }));

    it("sums the known costs of assistant messages; no known cost is null, never 0", () =>
      withStore(async (store) => {
        for (const id of ["priced", "unpriced"]) {
          const { session, branch } = sampleSession(id);
          await store.createSession(session, branch);
        }
        const usage = { input: 10, output: 5, cacheRead: 0, cacheWrite: 0, totalTokens: 15 };
        const answer = (sessionId: string, id: string, meta: ContextMessage["meta"]) =>
          textMessage(sessionId, id, "answer", { role: "assistant", meta });
        await store.write("priced", {
          messages: [
            textMessage("priced", "q1"),
            answer("priced", "a1", { model: "claude-x", usage, cost_usd: 0.1 }),
            // a model without known prices: usage counts, cost does not
            answer("priced", "a2", { model: "local", usage }),
            answer("priced", "a3", { model: "claude-x", usage, cost_usd: 0.2 }),
            answer("priced", "a4", { model: "claude-x", usage, cost_usd: 1 / 3 }),
            // a user row never counts, even with a cost in its meta
            textMessage("priced", "q2", "question", { meta: { cost_usd: 5 } }),
            // a sub-agent's tool_result carries its child loop's usage and cost: they count
            {
              id: "t1",
              session_id: "priced",
              role: "tool",
              status: "complete",
              created_at: "2025-01-01T00:00:02.000Z",
              body: {
                message_type: "tool_result",
                request_id: "a4",
                tool_call_id: "c1",
                tool_name: "researcher",
                content: [{ type: "text", text: "found" }],
                status: "success",
              },
              meta: { usage, cost_usd: 0.5, child_loop_id: "priced.mock.m.2" },
            },
          ],
        });
        await store.write("unpriced", {
          messages: [answer("unpriced", "a1", { model: "local", usage })],
        });
        const { session: all, branch: allBranch } = sampleSession("all-priced");
        await store.createSession(all, allBranch);
        await store.write("all-priced", {
          messages: [
            answer("all-priced", "a1", { model: "claude-x", usage, cost_usd: 0.25 }),
            answer("all-priced", "a2", { model: "claude-x", usage, cost_usd: 0.5 }),
          ],
        });
        const list = await store.listSessions();
        // mixed: the priced part's dollars, marked incomplete
        const priced = list.find((s) => s.id === "priced")!;
        expect(priced.usage.totalTokens).toBe(75);
        expect(priced.usage.cost_usd).toBeCloseTo(0.1 + 0.2 + 1 / 3 + 0.5, 12);
        expect(priced.usage.cost_complete).toBe(false);
        // no price at all: null
        const unpriced = list.find((s) => s.id === "unpriced")!;
        expect(unpriced.usage.totalTokens).toBe(15);
        expect(unpriced.usage.cost_usd).toBeNull();
        expect(unpriced.usage.cost_complete).toBe(false);
        // every part priced: the whole cost
        const allPriced = list.find((s) => s.id === "all-priced")!;
        expect(allPriced.usage.cost_usd).toBeCloseTo(0.75, 12);
        expect(allPriced.usage.cost_complete).toBe(true);
        // the message's own cost is kept exactly
        const loaded = await store.loadSession("priced");
        expect(loaded!.messages.find((m) => m.id === "a4")!.meta!.cost_usd).toBe(1 / 3);
        expect(loaded!.messages.find((m) => m.id === "a2")!.meta).not.toHaveProperty("cost_usd");
      }));

    const badParts: Array<[string, (branchId: string) => SessionWrite, StoreErrorCode]> = [
      ["a duplicate message id", () => ({ messages: [textMessage("s1", "m-text")] }), "conflict"],
      [
        "the same new id twice",
        () => ({ messages: [textMessage("s1", "dup"), textMessage("s1", "dup")] }),
        "conflict",
      ],
      [
        "an append to an unknown branch",
        () => ({ branch_appends: [{ branch_id: "nope", message_ids: ["m-text"] }] }),
        "not_found",
      ],
      [
        "a lifecycle update of an unknown message",
        () => ({ message_updates: [{ id: "nope", status: "failed" }] }),
        "not_found",
      ],
      ["deleting an unknown branch", () => ({ deleted_branch_ids: ["nope"] }), "not_found"],
      [
        "deleting the active branch",
        (branchId) => ({ deleted_branch_ids: [branchId] }),
        "not_found",
      ],
    ];
    for (const [label, bad, code] of badParts) {
      it(`a write with ${label} applies nothing (no messages, events, state or branch change)`, () =>
        withStore(async (store) => {
          const { branch } = await seeded(store);
          const before = await store.loadSession("s1");
          const write: SessionWrite = {
            session: { title: "renamed", state: { type: "ConnectingToLLM" } },
            messages: [textMessage("s1", "fresh")],
            branch_appends: [{ branch_id: branch.id, message_ids: ["fresh"] }],
            message_updates: [{ id: "m-question", status: "complete" }],
            events: [{ name: "context_update", payload: { n: 1 } }],
            optimization_views: [sampleView("s1", branch.id, "v1")],
            ...bad(branch.id),
          };
          await expectStoreError(store.write("s1", write), code);
          expect(await store.loadSession("s1")).toEqual(before);
          expect(await store.readEvents("s1", 0)).toEqual([]);
          // no sequence was used up
          const ok = await store.write("s1", { events: [{ name: "context_update", payload: {} }] });
          expect(ok.events.map((e) => e.sequence)).toEqual([1]);
        }));
    }

    it("allocates event sequences 1..n per session, without gaps, and fills payload sequences", () =>
      withStore(async (store) => {
        await seeded(store, "a");
        await seeded(store, "b");
        const first = await store.write("a", {
          events: [
            {
              name: "content_delta",
              payload: { message_id: "m", sequence: 0, delta: "x", is_final: false },
            },
            { name: "content_final", payload: { message_id: "m", sequence: 0, is_final: true } },
          ],
        });
        const other = await store.write("b", {
          events: [{ name: "context_update", payload: { k: 1 } }],
        });
        const second = await store.write("a", {
          events: [{ name: "context_update", payload: { k: 2 } }],
        });
        expect(first.events.map((e) => e.sequence)).toEqual([1, 2]);
        expect(second.events.map((e) => e.sequence)).toEqual([3]);
        expect(other.events.map((e) => e.sequence)).toEqual([1]);
        expect(first.events[0]).toMatchObject({ session_id: "a", name: "content_delta" });
        expect(first.events[0]!.payload).toMatchObject({ sequence: 1, delta: "x" });
        expect(first.events[1]!.payload).toMatchObject({ sequence: 2, is_final: true });
        expect(second.events[0]!.payload).toEqual({ k: 2 });
        expect(typeof first.events[0]!.created_at).toBe("string");
      }));

    it("20 concurrent writes with events get distinct, contiguous sequences", () =>
      withStore(async (store) => {
        await seeded(store);
        const results = await Promise.all(
          Array.from({ length: 20 }, (_, i) =>
            store.write("s1", {
              messages: [textMessage("s1", `c-${i}`)],
              events: [
                { name: "context_update", payload: { writer: i, part: 0 } },
                { name: "context_update", payload: { writer: i, part: 1 } },
              ],
            }),
          ),
        );
        const all = results.flatMap((r) => r.events.map((e) => e.sequence)).sort((x, y) => x - y);
        expect(all).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
        for (const result of results) {
          const [a, b] = result.events.map((e) => e.sequence);
          expect(b).toBe(a! + 1);
        }
        const stored = await store.readEvents("s1", 0);
        expect(stored.map((e) => e.sequence)).toEqual(all);
      }));

    it("readEvents returns the events after N, ascending, up to the limit", () =>
      withStore(async (store) => {
        await seeded(store);
        for (let i = 0; i < 5; i++) {
          await store.write("s1", { events: [{ name: "context_update", payload: { i } }] });
        }
        expect((await store.readEvents("s1", 2)).map((e) => e.sequence)).toEqual([3, 4, 5]);
        expect((await store.readEvents("s1", 1, 2)).map((e) => e.sequence)).toEqual([2, 3]);
        expect(await store.readEvents("s1", 5)).toEqual([]);
        expect((await store.readEvents("s1", 0))[4]).toMatchObject({
          session_id: "s1",
          sequence: 5,
          name: "context_update",
          payload: { i: 4 },
        });
      }));

    it("countPendingApprovals counts the calls waiting for a decision over every session", () =>
      withStore(async (store) => {
        expect(await store.countPendingApprovals()).toBe(0);
        await seeded(store, "s1");
        await seeded(store, "s2");
        // each seeded request has call-1 pending and call-2 denied
        expect(await store.countPendingApprovals()).toBe(2);
        await store.write("s1", {
          message_updates: [
            {
              id: "m-request",
              approvals: { "call-1": { approval: "approved", decided_by: null } },
            },
          ],
        });
        expect(await store.countPendingApprovals()).toBe(1);
        await store.deleteSession("s2");
        expect(await store.countPendingApprovals()).toBe(0);
      }));

    it("a decision is stored with the person who made it (decided_by), or with nobody (null)", () =>
      withStore(async (store) => {
        await seeded(store);
        const ana = { id: "u-ana", name: "Ana" };
        await store.write("s1", {
          message_updates: [
            {
              id: "m-request",
              approvals: {
                "call-1": { approval: "approved", approval_note: "user", decided_by: ana },
              },
            },
          ],
        });
        const calls = async () => {
          const loaded = await store.loadSession("s1");
          const request = loaded!.messages.find((m) => m.id === "m-request")!;
          if (request.body.message_type !== "tool_request") throw new Error("fixture changed");
          return request.body.calls;
        };
        expect((await calls())[0]).toMatchObject({ approval: "approved", decided_by: ana });
        // a later write of another call leaves this one's person alone
        await store.write("s1", {
          message_updates: [
            { id: "m-request", approvals: { "call-2": { approval: "denied", decided_by: null } } },
          ],
        });
        const [first, second] = await calls();
        expect(first?.decided_by).toEqual(ana);
        expect(second).toMatchObject({ approval: "denied" });
        expect(second?.decided_by ?? null).toBeNull();
      }));

    it("lifecycle updates change status, approvals, completed_at and meta but never content", () =>
      withStore(async (store) => {
        const { messages } = await seeded(store);
        await store.write("s1", {
          message_updates: [
            {
              id: "m-request",
              status: "complete",
              completed_at: "2025-01-02T00:00:00.000Z",
              approvals: { "call-1": { approval: "approved", approval_note: "user" } },
              meta: { stop_reason: "stop" },
            },
            { id: "m-question", status: "complete" },
          ],
        });
        const loaded = await store.loadSession("s1");
        const request = loaded!.messages.find((m) => m.id === "m-request")!;
        const original = messages.find((m) => m.id === "m-request")!;
        if (
          request.body.message_type !== "tool_request" ||
          original.body.message_type !== "tool_request"
        ) {
          throw new Error("fixture changed");
        }
        expect(request.body.calls[0]).toEqual({
          ...original.body.calls[0],
          approval: "approved",
          approval_note: "user",
        });
        expect(request.body.calls[1]).toEqual(original.body.calls[1]);
        expect(request.body.text).toBe(original.body.text);
        expect(request.body.thinking).toEqual(original.body.thinking);
        expect(request.completed_at).toBe("2025-01-02T00:00:00.000Z");
        expect(request.meta).toEqual({ ...original.meta, stop_reason: "stop" });
        const question = loaded!.messages.find((m) => m.id === "m-question")!;
        expect(question.status).toBe("complete");
        expect(question.body).toEqual(messages.find((m) => m.id === "m-question")!.body);
        // order in the pool is unchanged
        expect(loaded!.messages.map((m) => m.id)).toEqual(messages.map((m) => m.id));
        // approvals on a message that is not a tool request are invalid
        await expectStoreError(
          store.write("s1", {
            message_updates: [{ id: "m-text", approvals: { x: { approval: "approved" } } }],
          }),
          "invalid",
        );
      }));

    it("a user message's client_metadata round trips, also through a lifecycle update", () =>
      withStore(async (store) => {
        const { branch } = await seeded(store);
        const clientMetadata = { draft_id: "d-1", nested: { tags: ["a", "b"], n: 2 } };
        const plain = { ...textMessage("s1", "m-client", "hi"), client_metadata: clientMetadata };
        const withMeta = {
          ...textMessage("s1", "m-client-2", "hello", { meta: { loop_id: "loop-1" } }),
          client_metadata: { draft_id: "d-2" },
        };
        await store.write("s1", {
          messages: [plain, withMeta],
          branch_appends: [{ branch_id: branch.id, message_ids: [plain.id, withMeta.id] }],
        });
        await store.write("s1", {
          message_updates: [{ id: withMeta.id, meta: { stop_reason: "stop" } }],
        });
        const loaded = await store.loadSession("s1");
        const first = loaded!.messages.find((m) => m.id === plain.id)!;
        expect(first.client_metadata).toEqual(clientMetadata);
        expect(first.meta).toBeUndefined();
        const second = loaded!.messages.find((m) => m.id === withMeta.id)!;
        expect(second.client_metadata).toEqual({ draft_id: "d-2" });
        expect(second.meta).toEqual({ loop_id: "loop-1", stop_reason: "stop" });
        const others = loaded!.messages.filter((m) => m.id !== plain.id && m.id !== withMeta.id);
        expect(others.every((m) => m.client_metadata === undefined)).toBe(true);
      }));

    it("a queued message is kept on no branch, then joins one as complete (message-queue.ts)", () =>
      withStore(async (store) => {
        const { branch } = await seeded(store);
        const queued = textMessage("s1", "m-queued", "steer me", {
          status: "queued",
          meta: { delivery: "steer" },
          client_metadata: { draft_id: "d-q" },
        });
        await store.write("s1", { messages: [queued] });
        const waiting = await store.loadSession("s1");
        expect(waiting!.messages.find((m) => m.id === queued.id)).toEqual(queued);
        expect(waiting!.branches[0]!.message_ids).not.toContain(queued.id);
        await store.write("s1", {
          message_updates: [
            { id: queued.id, status: "complete", completed_at: "2025-01-01T00:00:09.000Z" },
          ],
          branch_appends: [{ branch_id: branch.id, message_ids: [queued.id] }],
        });
        const delivered = await store.loadSession("s1");
        expect(delivered!.messages.find((m) => m.id === queued.id)).toEqual({
          ...queued,
          status: "complete",
          completed_at: "2025-01-01T00:00:09.000Z",
        });
        expect(delivered!.branches[0]!.message_ids.at(-1)).toBe(queued.id);
      }));

    it("branch appends keep order across writes", () =>
      withStore(async (store) => {
        const { session, branch } = sampleSession("s1");
        await store.createSession(session, branch);
        for (const batch of [["a"], ["b", "c"], ["d"]]) {
          await store.write("s1", {
            messages: batch.map((id) => textMessage("s1", id)),
            branch_appends: [{ branch_id: branch.id, message_ids: batch }],
          });
        }
        const loaded = await store.loadSession("s1");
        expect(loaded!.branches[0]!.message_ids).toEqual(["a", "b", "c", "d"]);
      }));

    it("branches are created, replaced whole, switched to and deleted", () =>
      withStore(async (store) => {
        const { branch: main, messages } = await seeded(store);
        const fork: Branch = {
          ...main,
          id: "fork",
          name: "fork",
          parent_branch_id: main.id,
          fork_message_id: "m-file",
          message_ids: ["m-text", "m-file"],
          system_prompt: "fork prompt",
          pipeline: { processors: ["file_reference", "system_prompt"] },
        };
        await store.write("s1", { branches: [fork], session: { active_branch_id: "fork" } });
        let loaded = await store.loadSession("s1");
        expect(loaded!.session.active_branch_id).toBe("fork");
        expect(loaded!.branches.find((b) => b.id === "fork")).toEqual(fork);
        const replaced: Branch = {
          ...fork,
          message_ids: ["m-text", "m-file", "m-plan"],
          merged_from: [
            {
              branch_id: main.id,
              merge_id: "mg-1",
              strategy: "cherry_pick",
              at: "2025-01-03T00:00:00.000Z",
            },
          ],
        };
        await store.write("s1", { branches: [replaced] });
        loaded = await store.loadSession("s1");
        expect(loaded!.branches.find((b) => b.id === "fork")).toEqual(replaced);
        await store.write("s1", {
          session: { active_branch_id: main.id },
          deleted_branch_ids: ["fork"],
        });
        loaded = await store.loadSession("s1");
        expect(loaded!.branches.map((b) => b.id)).toEqual([main.id]);
        // the shared pool is untouched by branch changes
        expect(loaded!.messages).toEqual(messages);
        // a branch naming a message that is not in the pool is rejected
        await expectStoreError(
          store.write("s1", { branches: [{ ...fork, message_ids: ["ghost"] }] }),
          "not_found",
        );
      }));

    it("pending merges are stored with the session, replaced whole and cleared", () =>
      withStore(async (store) => {
        const { branch } = await seeded(store);
        const cherry: PendingMerge = {
          strategy: "cherry_pick",
          merge_id: "mg-1",
          source_branch_id: "fork",
          target: branch,
          picked_ids: ["m-file"],
          dependency_ids: ["m-text"],
          with_dependencies_ids: ["m-text", "m-file"],
          warnings: [{ kind: "nothing_to_merge", description: "already there" }],
        };
        const rebase: PendingMerge = {
          strategy: "rebase",
          merge_id: "mg-2",
          source_branch_id: "fork",
          target: branch,
          replay_ids: ["m-plan"],
          conflicts: [],
          resolutions: [{ conflict_id: "c1", resolution: "custom", text: "mine" }],
        };
        await store.write("s1", {
          session: { pending_merges: [cherry, rebase] },
          events: [{ name: "context_update", payload: {} }],
        });
        expect((await store.loadSession("s1"))!.session.pending_merges).toEqual([cherry, rebase]);
        await store.write("s1", { session: { pending_merges: [rebase] } });
        expect((await store.loadSession("s1"))!.session.pending_merges).toEqual([rebase]);
        await store.write("s1", { session: { pending_merges: [] } });
        expect((await store.loadSession("s1"))!.session.pending_merges).toBeUndefined();
      }));

    it("a write expecting a newer or older last sequence than stored is refused whole", () =>
      withStore(async (store) => {
        await seeded(store);
        const event = { name: "context_update", payload: {} };
        await store.write("s1", { events: [event], expected_last_sequence: 0 });
        for (const stale of [0, 2]) {
          await expectStoreError(
            store.write("s1", {
              events: [event],
              session: { title: "stale" },
              expected_last_sequence: stale,
            }),
            "conflict",
          );
        }
        expect((await store.readEvents("s1", 0)).map((e) => e.sequence)).toEqual([1]);
        expect((await store.loadSession("s1"))!.session.title).not.toBe("stale");
        await store.write("s1", { events: [event, event], expected_last_sequence: 1 });
        expect((await store.readEvents("s1", 0)).map((e) => e.sequence)).toEqual([1, 2, 3]);
      }));

    it("optimization views round trip", () =>
      withStore(async (store) => {
        const { branch } = await seeded(store);
        const view = sampleView("s1", branch.id, "v1");
        await store.write("s1", { optimization_views: [view] });
        expect((await store.loadSession("s1"))!.optimization_views).toEqual([view]);
        await expectStoreError(store.write("s1", { optimization_views: [view] }), "conflict");
      }));

    it("loops are inserted, then updated in place, and listed per session", () =>
      withStore(async (store) => {
        await seeded(store);
        await seeded(store, "s2");
        await store.upsertLoop(sampleLoop("s1", "loop-1", 1));
        await store.upsertLoop(sampleLoop("s1", "loop-2", 1));
        await store.upsertLoop(sampleLoop("s2", "loop-3", 1));
        const updated = {
          ...sampleLoop("s1", "loop-1", 3),
          endedAt: 1_700_000_001_000,
          durationMs: 1000,
        };
        await store.upsertLoop(updated);
        const loops = await store.listLoops("s1");
        expect(loops.map((l) => l.loopId)).toEqual(["loop-1", "loop-2"]);
        expect(loops[0]).toEqual(updated);
        expect(await store.listLoops("unknown")).toEqual([]);
        // a sub-agent's loop under a runtime session id with no session record is kept too
        await store.upsertLoop(sampleLoop("sub-agent-session", "loop-9", 1));
        expect((await store.listLoops("sub-agent-session")).map((l) => l.loopId)).toEqual([
          "loop-9",
        ]);
      }));

    it("nextLoopNumber: one more than the highest stored n of that session and config", () =>
      withStore(async (store) => {
        await seeded(store);
        const config = "anthropic.claude-sonnet-4";
        expect(await store.nextLoopNumber("s1", config)).toBe(1);
        await store.upsertLoop(sampleLoop("s1", `s1.${config}.1`, 1));
        await store.upsertLoop(sampleLoop("s1", `s1.${config}.2`, 1));
        expect(await store.nextLoopNumber("s1", config)).toBe(3);
        // numbers compare as numbers, and gaps are not filled
        await store.upsertLoop(sampleLoop("s1", `s1.${config}.10`, 1));
        expect(await store.nextLoopNumber("s1", config)).toBe(11);
        // an update in place changes nothing
        await store.upsertLoop(sampleLoop("s1", `s1.${config}.10`, 3));
        expect(await store.nextLoopNumber("s1", config)).toBe(11);
        // other configs, other sessions, longer config ids and other shapes do not count
        await store.upsertLoop(sampleLoop("s1", "s1.openai.gpt-5.40", 1));
        await store.upsertLoop(sampleLoop("s1", `s1.${config}.thinking.50`, 1));
        await store.upsertLoop(sampleLoop("s1", `s1.${config}.x`, 1));
        await store.upsertLoop(sampleLoop("s1", "loop-99", 1));
        await store.upsertLoop(sampleLoop("s2", `s2.${config}.70`, 1));
        // LIKE wildcards in an id are plain characters
        await store.upsertLoop(sampleLoop("s1", "s1.a_c.5", 1));
        expect(await store.nextLoopNumber("s1", config)).toBe(11);
        expect(await store.nextLoopNumber("s1", `${config}.thinking`)).toBe(51);
        expect(await store.nextLoopNumber("s1", "abc")).toBe(1);
        expect(await store.nextLoopNumber("s1", "a_c")).toBe(6);
        expect(await store.nextLoopNumber("s2", config)).toBe(71);
        // a sub-agent's runtime session has no session record: its loops count all the same
        expect(await store.nextLoopNumber("ghost", config)).toBe(1);
        await store.deleteSession("s1");
        expect(await store.nextLoopNumber("s1", config)).toBe(1);
      }));

    it("workspace trust: put replaces the record of (workspace, file, name), list is per workspace", () =>
      withStore(async (store) => {
        const record = {
          workspace: "/ws/a",
          file: "mcp_servers.json",
          name: "everything",
          hash: "a".repeat(64),
          trusted_by: "owner",
          trusted_at: "2026-11-27T10:00:00.000Z",
        };
        expect(await store.listWorkspaceTrust("/ws/a")).toEqual([]);
        await store.putWorkspaceTrust(record);
        await store.putWorkspaceTrust({ ...record, name: "other" });
        await store.putWorkspaceTrust({ ...record, workspace: "/ws/b" });
        await store.putWorkspaceTrust({ ...record, hash: "b".repeat(64) });
        const listed = await store.listWorkspaceTrust("/ws/a");
        expect(listed.sort((x, y) => x.name.localeCompare(y.name))).toEqual([
          { ...record, hash: "b".repeat(64) },
          { ...record, name: "other" },
        ]);
        await store.deleteWorkspaceTrust("/ws/a", "mcp_servers.json", "everything");
        await store.deleteWorkspaceTrust("/ws/a", "mcp_servers.json", "absent");
        expect((await store.listWorkspaceTrust("/ws/a")).map((r) => r.name)).toEqual(["other"]);
        expect(await store.listWorkspaceTrust("/ws/b")).toHaveLength(1);
      }));

    it("deleting a session removes everything: record, messages, branches, events, views and loops", () =>
      withStore(async (store) => {
        const { branch } = await seeded(store);
        await seeded(store, "keep");
        await store.write("s1", {
          events: [{ name: "context_update", payload: {} }],
          optimization_views: [sampleView("s1", branch.id, "v1")],
        });
        await store.upsertLoop(sampleLoop("s1", "loop-1", 1));
        await store.deleteSession("s1");
        expect(await store.loadSession("s1")).toBeUndefined();
        expect((await store.listSessions()).map((s) => s.id)).toEqual(["keep"]);
        expect(await store.listLoops("s1")).toEqual([]);
        await expectStoreError(store.readEvents("s1", 0), "not_found");
        // the id can be reused and starts afresh
        await seeded(store, "s1");
        const again = await store.write("s1", {
          events: [{ name: "context_update", payload: {} }],
        });
        expect(again.events[0]!.sequence).toBe(1);
        expect((await store.loadSession("s1"))!.optimization_views).toEqual([]);
        expect((await store.loadSession("keep"))!.messages).toHaveLength(
          everyMessageType("keep").length,
        );
      }));

    it("unknown sessions: load is undefined; write, readEvents and delete fail with not_found", () =>
      withStore(async (store) => {
        expect(await store.loadSession("ghost")).toBeUndefined();
        await expectStoreError(
          store.write("ghost", { events: [{ name: "x", payload: {} }] }),
          "not_found",
        );
        await expectStoreError(store.readEvents("ghost", 0), "not_found");
        await expectStoreError(store.deleteSession("ghost"), "not_found");
      }));

    it("creating a session twice is a conflict; a message of another session is invalid", () =>
      withStore(async (store) => {
        const { session, branch } = sampleSession("s1");
        await store.createSession(session, branch);
        await expectStoreError(store.createSession(session, branch), "conflict");
        await expectStoreError(
          store.write("s1", { messages: [textMessage("other", "x")] }),
          "invalid",
        );
      }));
  });
}
