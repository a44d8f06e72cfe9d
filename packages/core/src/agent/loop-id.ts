import { providerIdFor } from "../llm/provider.js";
import type { ThinkingLevel } from "../model/llm-config.js";
import type { AgentLoopConfig } from "./types.js";

// Loop identity (REQ-187–189): loop ids read `{sessionId}.{configId}.{n}`, where n counts the
// loops of one session run with one config, starting at 1.

/**
 * REQ-187: `config.configId` verbatim, else `{providerId}.{modelSlug}[.thinking]`, naming the
 * provider that serves the model (through a registry: the one it routes to).
 */
export function effectiveConfigId(
  config: Pick<AgentLoopConfig, "provider" | "model" | "thinkingLevel" | "configId">,
): string {
  if (config.configId !== undefined && config.configId !== "") return config.configId;
  return deriveConfigId(
    providerIdFor(config.provider, config.model),
    config.model.model,
    config.thinkingLevel,
  );
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

/** `{sessionId}.{configId}.{n}` */
export function loopIdOf(sessionId: string, configId: string, n: number): string {
  return `${sessionId}.${configId}.${n}`;
}

/**
 * Per-`{sessionId}.{configId}` counters, in memory: they start again at 1 in a new process. A
 * caller that keeps loop records across restarts (a session) takes n from its store instead
 * (SessionStore.nextLoopNumber). One per Agent; one module-wide for bare loop calls.
 */
export class LoopIdAllocator {
  private readonly counters = new Map<string, number>();

  next(sessionId: string, configId: string): string {
    const key = `${sessionId}.${configId}`;
    const n = (this.counters.get(key) ?? 0) + 1;
    this.counters.set(key, n);
    return loopIdOf(sessionId, configId, n);
  }

  clear(): void {
    this.counters.clear();
  }
}
