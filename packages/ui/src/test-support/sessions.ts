import type { SessionSummary } from "@arbor/core/browser";

export function summary(
  id: string,
  title: string,
  overrides: Partial<SessionSummary> = {},
): SessionSummary {
  return {
    id,
    title,
    state: { type: "Idle" },
    updated_at: "2025-06-10T11:55:00Z",
    message_count: 4,
    usage: {
      input: 1000,
      output: 500,
      cacheRead: 0,
      cacheWrite: 0,
      totalTokens: 1500,
      cost_usd: 0.0042,
      cost_complete: true,
    },
    ...overrides,
  };
}
