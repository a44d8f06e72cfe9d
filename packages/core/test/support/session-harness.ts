import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import type { Logger } from "../../src/agent/types.js";
import type { SessionDeps } from "../../src/context/session/session-deps.js";
import { SessionManager } from "../../src/context/session/session-manager.js";
import { modelConfig } from "../../src/model/llm-config.js";
import type { ContextState } from "../../src/model/states.js";
import type { SessionEvent } from "../../src/protocol/events.js";
import { InMemorySessionStore } from "../../src/store/memory-store.js";
import type { Script } from "../../src/testing/script.js";
import { ScriptedProvider } from "../../src/testing/scripted-provider.js";
import { type AnyAgentTool, defineTool, ToolError } from "../../src/tools/tool.js";

// Shared fixtures of the Session tests (not exported from the package).

export const testModel = modelConfig({ protocol: "offline", model: "scripted-model" });

export const silent: Logger & { entries: Array<{ level: string; message: string }> } = {
  entries: [],
  debug() {},
  info(message) {
    silent.entries.push({ level: "info", message });
  },
  warn(message) {
    silent.entries.push({ level: "warn", message });
  },
  error(message) {
    silent.entries.push({ level: "error", message });
  },
};

export const echoTool: AnyAgentTool = defineTool({
  name: "echo",
  label: "Echo",
  description: "Echoes text",
  category: "read",
  parameters: z.object({ text: z.string() }),
  execute: async ({ text }) => ({ content: [{ type: "text", text: `echo: ${text}` }] }),
});

export const writeTool: AnyAgentTool = defineTool({
  name: "write_note",
  label: "Write note",
  description: "Writes a note",
  category: "write",
  parameters: z.object({ text: z.string() }),
  execute: async ({ text }) => ({ content: [{ type: "text", text: `wrote ${text}` }] }),
});

export const failingTool: AnyAgentTool = defineTool({
  name: "explode",
  label: "Explode",
  description: "Always fails",
  category: "read",
  parameters: z.object({}),
  execute: async () => {
    throw ToolError.failed("boom");
  },
});

/** A tool that waits until `release()` is called (for interrupts mid-tool). */
export function gatedTool(): { tool: AnyAgentTool; started: Promise<void>; release: () => void } {
  let release!: () => void;
  let markStarted!: () => void;
  const gate = new Promise<void>((r) => {
    release = r;
  });
  const started = new Promise<void>((r) => {
    markStarted = r;
  });
  const tool = defineTool({
    name: "slow",
    label: "Slow",
    description: "Waits",
    category: "read",
    parameters: z.object({}),
    execute: async () => {
      markStarted();
      await gate;
      return { content: [{ type: "text", text: "slow done" }] };
    },
  });
  return { tool, started, release };
}

let harnesses = 0;

export interface Harness {
  store: InMemorySessionStore;
  provider: ScriptedProvider;
  manager: SessionManager;
  deps: SessionDeps;
}

export function harness(
  script: Script,
  extra: Partial<SessionDeps> & { store?: InMemorySessionStore } = {},
): Harness {
  const store = extra.store ?? new InMemorySessionStore();
  const provider = new ScriptedProvider(script);
  const prefix = `h${++harnesses}`;
  let n = 0;
  const deps: SessionDeps = {
    store,
    provider,
    model: testModel,
    tools: () => [echoTool, writeTool, failingTool],
    logger: silent,
    retryConfig: { maxRetries: 0, initialDelayMs: 1, backoffMultiplier: 2, maxDelayMs: 1 },
    newId: () => `${prefix}-${++n}`,
    ...extra,
  };
  return { store, provider, manager: new SessionManager(deps), deps };
}

export async function collect(events: AsyncIterable<SessionEvent>): Promise<SessionEvent[]> {
  const out: SessionEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
}

/** The state types the events moved through (transitions only, not message updates). */
export function states(events: readonly SessionEvent[]): string[] {
  const out: string[] = [];
  for (const e of events) {
    if (e.name === "context_update" && e.payload.previous_state !== undefined) {
      out.push(e.payload.current_state.type);
    }
  }
  return out;
}

export function stateData(events: readonly SessionEvent[]): ContextState[] {
  return events.flatMap((e) =>
    e.name === "context_update" && e.payload.previous_state !== undefined
      ? [e.payload.current_state]
      : [],
  );
}

export function errors(events: readonly SessionEvent[]) {
  return events.flatMap((e) => (e.name === "error" ? [e.payload] : []));
}

export function tempWorkspace(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "arbor-session-"));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

export const say = (text: string) => ({ blocks: [{ type: "text" as const, text }] });
export const call = (name: string, args: Record<string, unknown>, id?: string) => ({
  blocks: [{ type: "toolCall" as const, name, arguments: args, ...(id ? { id } : {}) }],
});
