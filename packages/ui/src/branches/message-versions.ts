import type { Branch } from "@arbor/core/browser";

// The `‹ 1/2 ›` switcher of a message: the versions of one place in the conversation. Two
// branches that hold the same messages up to a position and different ones at it (an edit, a
// regenerated answer, a fork that went on differently) offer each other's message there as another
// version; choosing one checks out a branch that has it. Pure, so it is tested without a DOM.

export interface MessageVersions {
  /** 0-based: which of the versions the active branch shows */
  index: number;
  /** the branch to check out for each version, oldest version first */
  branchIds: string[];
}

/**
 * The versions at each message of the active branch that has more than one, by message id.
 * `isNotice` names system notices (ask N ways puts its verdict notice before the chosen answer,
 * where the other candidates' branches hold their answers): a notice is not a version of anything,
 * so the switch goes on the message after it, the answer (issue #27, case 9).
 */
export function messageVersions(
  branches: readonly Branch[],
  activeBranchId: string | undefined,
  isNotice: (messageId: string) => boolean = () => false,
): Map<string, MessageVersions> {
  const out = new Map<string, MessageVersions>();
  const active = branches.find((b) => b.id === activeBranchId);
  if (!active) return out;
  // branches that agree with the active one on every position before k
  let candidates = branches.filter((b) => b.id !== active.id);
  for (let k = 0; k < active.message_ids.length && candidates.length > 0; k++) {
    const here = active.message_ids[k] as string;
    // each other message at k, with the branch that shows it (the most recently changed one)
    const others = new Map<string, Branch>();
    for (const branch of candidates) {
      const id = branch.message_ids[k];
      if (id === undefined || id === here) continue;
      const seen = others.get(id);
      if (!seen || seen.updated_at < branch.updated_at) others.set(id, branch);
    }
    if (others.size > 0) {
      const versions = [
        { id: here, branch: active },
        ...[...others].map(([id, branch]) => ({ id, branch })),
      ].sort(
        (a, b) =>
          a.branch.created_at.localeCompare(b.branch.created_at) || a.id.localeCompare(b.id),
      );
      const next = active.message_ids[k + 1];
      const on = isNotice(here) && next !== undefined ? next : here;
      out.set(on, {
        index: versions.findIndex((v) => v.id === here),
        branchIds: versions.map((v) => v.branch.id),
      });
    }
    candidates = candidates.filter((b) => b.message_ids[k] === here);
  }
  return out;
}
