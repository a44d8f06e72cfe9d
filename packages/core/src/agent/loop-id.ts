import type { ThinkingLevel } from "../model/llm-config.js";
import type { AgentLoopConfig } from "./types.js";

// Loop identity (REQ-187–189): loop ids read `{sessionId}.{configId}.{n}`, where n counts the
// loops of one session run with one config, starting at 1.

/** REQ-187: `config.configId` verbatim, else `{providerId}.{modelSlug}[.thinking]`. */
export function effectiveConfigId(
  config: Pick<AgentLoopConfig, "provider" | "model" | "thinkingLevel" | "configId">,
): string {
  if (config.configId !== undefined && config.configId !== "") return config.configId;
  return deriveConfigId(config.provider.providerId, config.model.model, config.thinkingLevel);
}

export function deriveConfigId(
  providerId: string,
  model: string,
  thinking?: ThinkingLevel,
): string {
  // dots separate the id's segments, so the model slug must not contain any
  const slug =
    model
      .toLowerCase()
      .replace(/[^a-z0-9_-]+/g, "-")
      .replace(/^-+|-+$/g, "") || "model";
  const thinkingSuffix = thinking !== undefined && thinking !== "off" ? ".thinking" : "";
  return `${providerId}.${slug}${thinkingSuffix}`;
}

/** Per-`{sessionId}.{configId}` counters. One per Agent; one module-wide for bare loop calls. */
export class LoopIdAllocator {
  private readonly counters = new Map<string, number>();

  next(sessionId: string, configId: string): string {
    const key = `${sessionId}.${configId}`;
    const n = (this.counters.get(key) ?? 0) + 1;
    this.counters.set(key, n);
    return `${key}.${n}`;
  }

  clear(): void {
    this.counters.clear();
  }
}
