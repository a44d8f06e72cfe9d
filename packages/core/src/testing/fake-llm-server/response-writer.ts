import type { ServerResponse } from "node:http";
import type { ScriptedTurn } from "../script.js";
import type { Frame } from "./wire-format.js";

// Writes a streamed answer frame by frame, honouring the turn's timing. Contract: never throws;
// stops as soon as the client goes away; `interruptAfterChunks` destroys the socket after that
// many frames reached it (the client sees a dropped connection, not a clean end);
// `holdAfterChunks` waits for `hold()` (the test's release) after that many frames.

export function sleep(ms: number): Promise<void> {
  return ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : Promise.resolve();
}

/** Resolves once the frame is handed to the OS, or the response closed. */
function writeFrame(res: ServerResponse, frame: Frame): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off("close", done);
      resolve();
    };
    res.once("close", done);
    res.write(frame, done);
  });
}

/** True once the response is closed (finished or the connection dropped). */
export function closedFlag(res: ServerResponse): () => boolean {
  let closed = false;
  res.once("close", () => {
    closed = true;
  });
  return () => closed || res.destroyed;
}

export async function writeStream(
  res: ServerResponse,
  frames: Frame[],
  turn: ScriptedTurn,
  isClosed: () => boolean,
  hold: () => Promise<void>,
): Promise<void> {
  const interruptAfter = turn.interruptAfterChunks;
  for (let i = 0; i < frames.length; i++) {
    // 0 is held before the response starts (server.ts)
    if (i > 0 && i === turn.holdAfterChunks) await hold();
    if (interruptAfter !== undefined && i >= interruptAfter) {
      res.socket?.destroy();
      return;
    }
    await sleep(turn.chunkDelayMs ?? 0);
    const frame = frames[i];
    if (isClosed() || frame === undefined) return;
    await writeFrame(res, frame);
  }
  if (frames.length > 0 && turn.holdAfterChunks === frames.length) await hold();
  if (interruptAfter !== undefined && interruptAfter <= frames.length) {
    res.socket?.destroy();
    return;
  }
  if (!isClosed()) res.end();
}
