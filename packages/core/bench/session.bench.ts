// Adding a message through the session's pipeline with persistence, in memory: the
// InMemorySessionStore and a provider that answers at once. Measured: sendMessage of a text
// message from the call until the message is processed and stored (its "completed" update):
// the pipeline's states, processors and store writes, not the model's answer that follows.
import { SessionManager } from "../src/context/session/session-manager.js";
import { modelConfig } from "../src/model/llm-config.js";
import { InMemorySessionStore } from "../src/store/memory-store.js";
import { ScriptedProvider } from "../src/testing/scripted-provider.js";
import { type BenchFigure, median } from "./figure.js";

const silent = { debug() {}, info() {}, warn() {}, error() {} };

export async function run(): Promise<BenchFigure[]> {
  const store = new InMemorySessionStore();
  const provider = new ScriptedProvider(() => ({ blocks: [{ type: "text", text: "ok" }] }));
  const manager = new SessionManager({
    store,
    provider,
    model: modelConfig({ protocol: "offline", model: "bench" }),
    tools: () => [],
    logger: silent,
  });
  const session = await manager.create();
  /** ms until the user message is processed and stored (its "completed" update), then drains */
  const send = async (i: number): Promise<number> => {
    const started = performance.now();
    let stored = Number.NaN;
    for await (const event of session.sendMessage({ type: "text", text: `message ${i}` })) {
      if (
        Number.isNaN(stored) &&
        event.name === "context_update" &&
        event.payload.message_update?.kind === "completed"
      ) {
        stored = performance.now() - started;
      }
    }
    return stored;
  };
  for (let i = 0; i < 50; i++) await send(i);
  const samples: number[] = [];
  for (let i = 0; i < 300; i++) {
    samples.push(await send(i));
  }
  const value = median(samples);
  return [
    {
      name: "session: add a message through the pipeline (+ answer), in memory",
      value,
      unit: "ms",
      target: "< 2 ms (spec 50 ms)",
      pass: value < 2,
      notes: `median of 300 messages, call → stored, on a growing branch (${350 * 2} messages at the end)`,
    },
  ];
}
