import type { Branch } from "@arbor/core/browser";

export function branch(id: string, overrides: Partial<Branch> = {}): Branch {
  return {
    id,
    session_id: "s1",
    name: id,
    parent_branch_id: null,
    fork_message_id: null,
    message_ids: [],
    merged_from: [],
    created_at: "2025-06-10T12:00:00Z",
    updated_at: "2025-06-10T12:00:00Z",
    ...overrides,
  };
}
