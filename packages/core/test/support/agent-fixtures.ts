import { z } from "zod";
import type { AgentEvent, AgentLoopConfig, Logger } from "../../src/agent/types.js";
import type { StreamProvider } from "../../src/llm/provider.js";
import { modelConfig } from "../../src/model/llm-config.js";
import { defineTool } from "../../src/tools/tool.js";

// Shared fixtures of the agent tests (not exported from the package).

export const testModel = modelConfig({ protocol: "offline", model: "scripted-model" });

/** Fast, deterministic defaults: no compaction, no limits, millisecond retries. */
export function loopConfig(
  provider: StreamProvider,
  extra: Partial<AgentLoopConfig> = {},
): AgentLoopConfig {
  return {
    provider,
    model: testModel,
    contextConfig: null,
    executionLimits: null,
    retryConfig: { maxRetries: 3, initialDelayMs: 1, backoffMultiplier: 2, maxDelayMs: 4 },
    ...extra,
  };
}

export async function collect<T>(stream: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of stream) out.push(item);
  return out;
}

export function types(events: AgentEvent[]): string[] {
  return events.map((e) => e.type);
}

export const echoTool = defineTool({
  name: "echo",
  label: "Echo",
  description: "Returns its text.",
  parameters: z.object({ text: z.string() }),
  execute: async ({ text }) => ({
    content: [{ type: "text", text }],
    details: { length: text.length },
  }),
});

export interface LogEntry {
  level: "debug" | "info" | "warn" | "error";
  message: string;
  fields: Record<string, unknown> | undefined;
}

export function recordingLogger(): Logger & { entries: LogEntry[] } {
  const entries: LogEntry[] = [];
  const at =
    (level: LogEntry["level"]) =>
    (message: string, fields?: Record<string, unknown>): void => {
      entries.push({ level, message, fields });
    };
  return { entries, debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
}
