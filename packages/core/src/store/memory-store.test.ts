import { describe, expect, it } from "vitest";
import { describeSessionStoreContract } from "../../test/support/store-contract.js";
import { everyMessageType, sampleSession, textMessage } from "./contract-fixtures.js";
import { InMemorySessionStore, type StoreOperation } from "./memory-store.js";
import { StoreError } from "./types.js";

describeSessionStoreContract("InMemorySessionStore", async () => ({
  store: new InMemorySessionStore(),
}));

async function seededStore(store: InMemorySessionStore): Promise<void> {
  const { session, branch } = sampleSession("s1");
  await store.createSession(session, branch);
  await store.write("s1", { messages: everyMessageType("s1") });
}

describe("InMemorySessionStore fault injection", () => {
  it("failNextWrite fails exactly the next write with the given error and changes nothing", async () => {
    const store = new InMemorySessionStore();
    await seededStore(store);
    const before = await store.loadSession("s1");
    const error = new StoreError("unavailable", "disk full");
    store.failNextWrite(error);
    await expect(
      store.write("s1", {
        messages: [textMessage("s1", "new")],
        events: [{ name: "context_update", payload: {} }],
      }),
    ).rejects.toBe(error);
    expect(await store.loadSession("s1")).toEqual(before);
    expect(await store.readEvents("s1", 0)).toEqual([]);
    // the following write succeeds and gets sequence 1
    const ok = await store.write("s1", { events: [{ name: "context_update", payload: {} }] });
    expect(ok.events[0]!.sequence).toBe(1);
  });

  it("failNextWrite defaults to a StoreError 'unavailable'", async () => {
    const store = new InMemorySessionStore();
    await seededStore(store);
    store.failNextWrite();
    await expect(store.write("s1", {})).rejects.toMatchObject({ code: "unavailable" });
  });

  it("the faults hook sees every operation and can fail a chosen one", async () => {
    const seen: StoreOperation["kind"][] = [];
    const store = new InMemorySessionStore({
      faults: (operation) => {
        seen.push(operation.kind);
        if (operation.kind === "write" && (operation.write.messages?.length ?? 0) > 0) {
          return new StoreError("unavailable", "message writes are down");
        }
        return undefined;
      },
    });
    const { session, branch } = sampleSession("s1");
    await store.createSession(session, branch);
    // event-only writes pass, message writes fail
    await store.write("s1", { events: [{ name: "context_update", payload: {} }] });
    await expect(store.write("s1", { messages: [textMessage("s1", "a")] })).rejects.toThrow(
      /message writes are down/,
    );
    expect((await store.loadSession("s1"))!.messages).toEqual([]);
    await store.readEvents("s1", 0);
    await store.listSessions();
    expect(seen).toEqual([
      "createSession",
      "write",
      "write",
      "loadSession",
      "readEvents",
      "listSessions",
    ]);
  });

  it("uses the injected clock for updated_at and event timestamps", async () => {
    const store = new InMemorySessionStore({ now: () => new Date("2030-05-05T05:05:05.000Z") });
    const { session, branch } = sampleSession("s1");
    await store.createSession(session, branch);
    const { events } = await store.write("s1", {
      events: [{ name: "context_update", payload: {} }],
    });
    expect(events[0]!.created_at).toBe("2030-05-05T05:05:05.000Z");
    expect((await store.loadSession("s1"))!.session.updated_at).toBe("2030-05-05T05:05:05.000Z");
  });

  it("a lifecycle update in the same write as its message is folded into the inserted row", async () => {
    const store = new InMemorySessionStore();
    const { session, branch } = sampleSession("s1");
    await store.createSession(session, branch);
    await store.write("s1", {
      messages: [textMessage("s1", "a", "hi", { status: "streaming" })],
      message_updates: [{ id: "a", status: "complete", completed_at: "2025-01-01T00:00:09.000Z" }],
    });
    const loaded = await store.loadSession("s1");
    expect(loaded!.messages).toEqual([
      textMessage("s1", "a", "hi", {
        status: "complete",
        completed_at: "2025-01-01T00:00:09.000Z",
      }),
    ]);
  });
});
