import { describe, expect, it } from "vitest";
import { collect, errors, harness } from "../../../test/support/session-harness.js";
import type { EventStream } from "../../agent/event-stream.js";
import type { ProviderEvent, StreamRequest } from "../../llm/provider.js";
import type { AssistantMessage, LoopRecord } from "../../model/index.js";
import type { SessionEvent } from "../../protocol/events.js";
import { InMemorySessionStore } from "../../store/memory-store.js";
import type { ScriptedTurn } from "../../testing/script.js";

// Ask N ways (parallel-ask.ts) end to end through a Session: the candidates run side by side,
// every event is stored and streamed in order with the same sequences, and the operation ends
// only once every candidate's loop record and the answers are stored (the records are flushed
// while the verdict is written, decision 0084).

const N = 4;
const answer = (i: number): ScriptedTurn => ({
  blocks: [{ type: "text", text: `Candidate ${i} answers in a few chunks.` }],
  chunkSize: 6,
  chunkDelayMs: 2,
  firstChunkDelayMs: 20,
});

/** A store whose loop records take a while to write: the operation must still wait for them. */
class SlowLoopStore extends InMemorySessionStore {
  override async upsertLoop(record: LoopRecord): Promise<void> {
    await new Promise((resolve) => setTimeout(resolve, 15));
    await super.upsertLoop(record);
  }
}

describe("ask N ways through a session", () => {
  it("runs the candidates side by side; every event is stored and streamed in order, each loop record stored by the end", async () => {
    const store = new SlowLoopStore();
    const h = harness(
      Array.from({ length: N }, (_, i) => answer(i)),
      { store },
    );
    // how many model requests are open at once
    let open = 0;
    let most = 0;
    const stream = h.provider.stream.bind(h.provider);
    h.provider.stream = (
      request: StreamRequest,
      signal: AbortSignal,
    ): EventStream<ProviderEvent, AssistantMessage> => {
      open++;
      most = Math.max(most, open);
      const out = stream(request, signal);
      void out.result().finally(() => open--);
      return out;
    };
    const session = await h.manager.create();
    const operation = session.askParallel({
      session_id: session.id,
      payload: { type: "text", text: "Answer four ways." },
      candidates: Array.from({ length: N }, (_, i) => ({ label: `way ${i + 1}` })),
      judge: { strategy: "pick_first" },
    });
    const streamed = await collect(operation);
    expect(errors(streamed)).toEqual([]);
    expect(most).toBe(N);

    // the stream is the stored log: same events, same sequences, in order
    const stored = await store.readEvents(session.id, 0);
    const fromStream = streamed.filter((e) => e.sequence > 0);
    expect(fromStream.map((e) => e.sequence)).toEqual(
      [...fromStream.map((e) => e.sequence)].sort((a, b) => a - b),
    );
    const tail = stored.slice(stored.length - fromStream.length);
    expect(tail.map((e) => [e.sequence, e.name])).toEqual(
      fromStream.map((e) => [e.sequence, e.name]),
    );
    expect(tail.map((e) => e.payload)).toEqual(fromStream.map((e) => e.payload));

    // each candidate's deltas, in order, are its whole answer; its end follows them; the verdict
    // comes after every candidate
    const of = (e: SessionEvent) => (e.payload as { candidate?: number }).candidate;
    const verdictAt = streamed.findIndex((e) => e.name === "parallel_verdict");
    expect(verdictAt).toBeGreaterThan(0);
    for (let i = 0; i < N; i++) {
      const deltas = streamed.filter((e) => e.name === "candidate_delta" && of(e) === i);
      expect(deltas.map((e) => (e.payload as { delta: string }).delta).join("")).toBe(
        `Candidate ${i} answers in a few chunks.`,
      );
      const finished = streamed.findIndex((e) => e.name === "candidate_finished" && of(e) === i);
      expect(finished).toBeGreaterThan(streamed.lastIndexOf(deltas.at(-1) as SessionEvent));
      expect(finished).toBeLessThan(verdictAt);
    }

    // once the operation is over, every candidate's loop record is stored, ended
    const result = await operation.result;
    expect(result.ok).toBe(true);
    const loops = await store.listLoops(session.id);
    expect(loops).toHaveLength(N);
    expect(loops.map((l) => l.status)).toEqual(Array.from({ length: N }, () => "completed"));
    // the chosen answer continues the active branch; the others are on branches of their own
    const verdict = streamed[verdictAt]?.payload as { candidates: Array<{ branch_id: string }> };
    const loaded = await store.loadSession(session.id);
    expect(new Set(verdict.candidates.map((c) => c.branch_id)).size).toBe(N);
    expect(loaded?.branches).toHaveLength(N);
  });
});
