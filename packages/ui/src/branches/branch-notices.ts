import type { Branch, ContextMessage } from "@arbor/core/browser";

// What the transcript says where the active branch left the one it came from (issue #27, case 6):
// a fork, a regenerated answer and an edit each make a branch, and the reader is told which, at
// the place it happened. Derived from the stored branches and messages, so it reads the same
// after a reload and on every client. Pure, so it is tested without a DOM.

export type BranchNoticeKind = "fork" | "regenerate" | "edit" | "answer";

export interface BranchNotice {
  kind: BranchNoticeKind;
  /** the branch the notice is about */
  branch_id: string;
  /** the notice goes before this message of the active branch; undefined: after the last one */
  before_message_id: string | undefined;
  /** after this message (the fork point); undefined when the branch starts before the first */
  after_message_id: string | undefined;
  text: string;
}

/**
 * The notices of the active branch, top first: one for each branch on the way from it up to the
 * first branch whose place of leaving its parent is on the active branch's list.
 */
export function branchNotices(
  branches: readonly Branch[],
  activeBranchId: string | undefined,
  lookup: (messageId: string) => ContextMessage | undefined,
): BranchNotice[] {
  const byId = new Map(branches.map((b) => [b.id, b]));
  const active = byId.get(activeBranchId ?? "");
  if (active === undefined) return [];
  const onActive = new Set(active.message_ids);
  const out: BranchNotice[] = [];
  const seen = new Set<string>();
  for (let branch: Branch | undefined = active; branch !== undefined && !seen.has(branch.id); ) {
    seen.add(branch.id);
    const parent = byId.get(branch.parent_branch_id ?? "");
    if (parent === undefined) break;
    const at =
      branch.fork_message_id === null ? 0 : branch.message_ids.indexOf(branch.fork_message_id) + 1;
    const after = branch.fork_message_id ?? undefined;
    const ownId = branch.message_ids[at];
    // an ancestor's place is shown only where the active branch still holds it
    const shown =
      (after === undefined || onActive.has(after)) && (ownId === undefined || onActive.has(ownId));
    if (at > 0 || branch.fork_message_id === null) {
      if (shown && (ownId !== undefined || branch === active)) {
        out.push(notice(branch, parent, ownId, after, lookup));
      }
    }
    branch = parent;
  }
  return out.reverse();
}

function notice(
  branch: Branch,
  parent: Branch,
  ownId: string | undefined,
  after: string | undefined,
  lookup: (messageId: string) => ContextMessage | undefined,
): BranchNotice {
  const own = ownId === undefined ? undefined : lookup(ownId);
  const place = { branch_id: branch.id, before_message_id: ownId, after_message_id: after };
  const forked = {
    ...place,
    kind: "fork" as const,
    text:
      after === undefined
        ? `Forked into branch ${branch.name} from ${parent.name}.`
        : `Forked into branch ${branch.name} from ${parent.name} after this message.`,
  };
  if (own === undefined) return forked;
  if (own.role === "user" && own.meta?.edited_from !== undefined) {
    return {
      ...place,
      kind: "edit",
      text: `Edited and resent: this version is on branch ${branch.name}; the original stays on ${parent.name}.`,
    };
  }
  if (own.role === "assistant") {
    // ask N ways keeps each other candidate on a branch named so (parallel-answers.ts); the
    // parent's message at that place (the verdict notice) is not on this branch to look at
    const candidate = /\(asked \d+ ways\)$/.test(branch.name);
    return !candidate
      ? {
          ...place,
          kind: "regenerate",
          text: `Regenerated: this answer is on branch ${branch.name}; the earlier one stays on ${parent.name}.`,
        }
      : {
          ...place,
          kind: "answer",
          text: `Another candidate's answer: this one is on branch ${branch.name}; ${parent.name} goes on with the chosen one.`,
        };
  }
  return forked;
}
