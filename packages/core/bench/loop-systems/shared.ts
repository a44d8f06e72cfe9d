// What every system of the loop-overhead bench drives: 10,000 text chunks of 8 characters.

export const CHUNKS = 10_000;
export const CHUNK_CHARS = 8;
export const TEXT = "x".repeat(CHUNKS * CHUNK_CHARS);

/** One system: its fake stream iterated alone, and the same stream through its loop. */
export interface LoopSystem {
  name: string;
  /** text deltas seen iterating the fake stream directly */
  raw(): Promise<number>;
  /** text deltas seen through the loop */
  loop(): Promise<number>;
}
