import type { Logger } from "../agent/types.js";
import { copyData } from "../model/copy-data.js";
import type { LoopRecord, SessionLoopTree } from "../model/loop-records.js";
import { loopTreesFromRecords } from "./session-tree.js";

// The persistence seam of loop recording. The recorder hands every changed LoopRecord to a sink
// (on agentStart, each turnEnd, link changes and agentEnd), so a store can show the loop tree of
// a session that is still running. The storage issue implements the sink over the database;
// InMemoryLoopRecordSink serves tests and single-process use.

/**
 * Receives whole loop records; an upsert replaces what was stored for `record.loopId`.
 * Contract the recorder keeps: upserts for one loop never overlap and arrive in the order the
 * record changed; each call gets its own copy, which the sink may keep. A sink may reject or
 * throw: the recorder logs it and carries on (the next upsert of that loop carries the full
 * state again, so a transient failure heals itself).
 */
export interface LoopRecordSink {
  upsertLoop(record: LoopRecord): Promise<void>;
}

/** Keeps every upsert in memory: the latest record per loop, and the full write history. */
export class InMemoryLoopRecordSink implements LoopRecordSink {
  readonly #latest = new Map<string, LoopRecord>();
  readonly #writes: LoopRecord[] = [];

  async upsertLoop(record: LoopRecord): Promise<void> {
    this.#latest.set(record.loopId, record);
    this.#writes.push(record);
  }

  /** Every upsert in arrival order (for asserting on what a store would have seen). */
  get writes(): readonly LoopRecord[] {
    return this.#writes;
  }

  latest(loopId: string): LoopRecord | undefined {
    return this.#latest.get(loopId);
  }

  /** The latest record of each loop, in first-write order. */
  records(): LoopRecord[] {
    return [...this.#latest.values()];
  }

  /** The stored loops grouped back into sessions (what a viewer would load). */
  sessions(): SessionLoopTree[] {
    return loopTreesFromRecords(this.records());
  }
}

interface Lane {
  /** the newest record not yet handed to the sink (the live object: it is copied at its upsert) */
  pending: LoopRecord | undefined;
  /** the drain loop currently writing this lane, if any */
  draining: Promise<void> | undefined;
  /** ends the drain loop's initial wait at once (flush) */
  wake: (() => void) | undefined;
}

export interface SerializedSinkWriterOptions {
  logger?: Logger;
  /**
   * How long a lane waits before its first upsert, gathering the changes of that time into one
   * write (default 0: the first upsert starts synchronously inside write()). A store that also
   * carries the session's hot path (one SQLite writer) is spared the loop's start record landing
   * in the middle of the first model request; `flush` ends the wait at once.
   */
  delayMs?: number;
}

/**
 * Writes records to a sink one loop "lane" at a time. Within a lane at most one upsert is in
 * flight and they complete in order; when the sink is slower than the loop, snapshots queued
 * behind the in-flight upsert collapse into the newest one (every upsert carries the whole
 * record, so skipping an intermediate state loses nothing a store keeps). The last state
 * written is always the last state recorded. Lanes of different loops run independently.
 *
 * A record is copied when its upsert starts, not at each `write`: a lane that gathers changes
 * (a delay, or an upsert in flight) copies only the record it hands over, where it copied every
 * change before (measured in a session folding 20 times: 103 copies of up to 5 KB for 21 upserts).
 * The sink gets the record as it is when its upsert starts, which is the state of the newest
 * `write` or a later one: the recorder writes after every change it wants stored.
 */
export class SerializedSinkWriter {
  readonly #sink: LoopRecordSink;
  readonly #logger: Logger | undefined;
  readonly #lanes = new Map<string, Lane>();
  readonly #delayMs: number;

  constructor(sink: LoopRecordSink, options: SerializedSinkWriterOptions = {}) {
    this.#sink = sink;
    this.#logger = options.logger;
    this.#delayMs = options.delayMs ?? 0;
  }

  /**
   * Schedules an upsert of `record`. The sink gets a copy made when the upsert starts (at once,
   * inside this call, when the lane is idle and has no delay): a change after that is not in it.
   */
  write(record: LoopRecord): void {
    let lane = this.#lanes.get(record.loopId);
    if (!lane) {
      lane = { pending: undefined, draining: undefined, wake: undefined };
      this.#lanes.set(record.loopId, lane);
    }
    lane.pending = record;
    if (!lane.draining) lane.draining = this.#drain(record.loopId, lane);
  }

  /** Resolves when every write scheduled so far (and any scheduled meanwhile) has settled. */
  async flush(): Promise<void> {
    for (;;) {
      for (const lane of this.#lanes.values()) lane.wake?.();
      const draining = [...this.#lanes.values()].flatMap((lane) =>
        lane.draining ? [lane.draining] : [],
      );
      if (draining.length === 0) return;
      await Promise.all(draining);
    }
  }

  async #drain(loopId: string, lane: Lane): Promise<void> {
    // Without a delay the first upsert starts synchronously inside write(), so a quick sink sees
    // the "running" record before anything else the caller does next.
    if (this.#delayMs > 0) await this.#wait(lane);
    for (let record = lane.pending; record; record = lane.pending) {
      lane.pending = undefined;
      const snapshot = this.#snapshot(record);
      if (!snapshot) continue;
      try {
        await this.#sink.upsertLoop(snapshot);
      } catch (error) {
        this.#log("loop record sink failed", {
          loopId,
          status: snapshot.status,
          error: error instanceof Error ? error.message : String(error),
        });
      }
    }
    lane.draining = undefined;
    this.#lanes.delete(loopId);
  }

  #wait(lane: Lane): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, this.#delayMs);
      function done(): void {
        clearTimeout(timer);
        lane.wake = undefined;
        resolve();
      }
      lane.wake = done;
    });
  }

  #snapshot(record: LoopRecord): LoopRecord | undefined {
    try {
      return copyData(record);
    } catch {
      // Extension message data or tool details that cannot be cloned (functions, class
      // instances with private state): fall back to what JSON keeps, which is what a store keeps.
      try {
        return JSON.parse(JSON.stringify(record)) as LoopRecord;
      } catch (error) {
        this.#log("loop record could not be copied for the sink", {
          loopId: record.loopId,
          error: error instanceof Error ? error.message : String(error),
        });
        return undefined;
      }
    }
  }

  #log(message: string, fields: Record<string, unknown>): void {
    if (this.#logger) this.#logger.error(message, fields);
    else console.error(`[arbor] ${message}`, fields);
  }
}
