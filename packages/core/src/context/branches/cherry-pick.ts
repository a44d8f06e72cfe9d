import type { Branch } from "../../model/branch.js";
import type { MergeOutcome, MergeWarning, PendingCherryPick } from "../../model/merge-types.js";
import type { BodyOf, ContextMessage } from "../../model/message-types.js";
import { BranchOpError } from "./errors.js";
import { finishMerge } from "./merge-result.js";
import type { IdsAndClock, MessageLookup } from "./types.js";

// CherryPick: only the chosen messages, appended in SOURCE order (not the order the ids were
// given in), skipping those already on the target.
//
// Dependencies: a tool_result depends on its tool_request; a tool_request depends on the results
// of its calls that exist on the source. A dependency is satisfied when it is on the target or
// also picked. Unsatisfied ones give one warning each and the merge waits for the caller:
// - proceed with include_dependencies: the dependencies are added (transitively: a request
//   brought for one result brings its other results too);
// - proceed as chosen: requests go without their results (a warning-level validation finding);
//   a result without its request would make the branch invalid, so it is brought as a NEW
//   system_control notice quoting the result ("detached_tool_result"), never as the result itself;
// - cancel: nothing changes.

export interface CherryPickInput extends IdsAndClock {
  merge_id: string;
  source: Branch;
  target: Branch;
  pool: MessageLookup;
  messageIds: readonly string[];
}

export function planCherryPick(input: CherryPickInput): MergeOutcome {
  const { source, target, pool } = input;
  if (input.messageIds.length === 0) throw new BranchOpError({ code: "empty_selection" });
  const onSource = new Set(source.message_ids);
  for (const id of input.messageIds) {
    if (!pool(id)) throw new BranchOpError({ code: "unknown_message", message_id: id });
    if (!onSource.has(id)) {
      throw new BranchOpError({
        code: "message_not_on_branch",
        message_id: id,
        branch_id: source.id,
      });
    }
  }
  const onTarget = new Set(target.message_ids);
  const chosen = new Set(input.messageIds);
  const picked = source.message_ids.filter((id) => chosen.has(id) && !onTarget.has(id));
  const pickedSet = new Set(picked);
  const dependencies = dependencyIndex(source, pool);

  const warnings: MergeWarning[] = [];
  for (const id of picked) {
    const body = pool(id)?.body;
    for (const dep of dependencies(id)) {
      if (onTarget.has(dep) || pickedSet.has(dep)) continue;
      warnings.push(
        body?.message_type === "tool_result"
          ? {
              kind: "missing_tool_request",
              message_id: id,
              missing_id: dep,
              description: `tool result ${id} is picked without its tool request ${dep}`,
            }
          : {
              kind: "missing_tool_result",
              message_id: id,
              missing_id: dep,
              description: `tool request ${id} is picked without its result ${dep}`,
            },
      );
    }
  }

  const dependencyIds = dependencyClosure(source, picked, onTarget, dependencies);
  const withDependencies = new Set([...picked, ...dependencyIds]);
  const pending: PendingCherryPick = {
    strategy: "cherry_pick",
    merge_id: input.merge_id,
    source_branch_id: source.id,
    target,
    picked_ids: picked,
    dependency_ids: dependencyIds,
    with_dependencies_ids: source.message_ids.filter((id) => withDependencies.has(id)),
    warnings,
  };
  if (warnings.length > 0) return { status: "needs_confirmation", warnings, pending };
  return completeCherryPick(pending, false, input);
}

/** Applies "proceed" to a planned cherry-pick (also used when no confirmation was needed). */
export function completeCherryPick(
  pending: PendingCherryPick,
  includeDependencies: boolean,
  context: IdsAndClock & { pool: MessageLookup },
): Extract<MergeOutcome, { status: "merged" }> {
  const { target } = pending;
  const ordered = includeDependencies ? pending.with_dependencies_ids : pending.picked_ids;
  const onTarget = new Set(target.message_ids);
  const orphans = new Set(orphanResults(ordered, onTarget, context.pool));

  const newMessages: ContextMessage[] = [];
  const warnings: MergeWarning[] = [];
  const appended = ordered.map((id) => {
    const message = context.pool(id);
    if (!orphans.has(id) || message?.body.message_type !== "tool_result") return id;
    const copy = detachedCopy(message, message.body, pending, context);
    newMessages.push(copy);
    warnings.push({
      kind: "detached_tool_result",
      message_id: id,
      new_message_id: copy.id,
      description: `tool result ${id} was picked without its request and is brought as a notice`,
    });
    return copy.id;
  });
  return finishMerge({
    merge_id: pending.merge_id,
    strategy: "cherry_pick",
    source_branch_id: pending.source_branch_id,
    target,
    message_ids: [...target.message_ids, ...appended],
    newMessages,
    pool: context.pool,
    now: context.now,
    warnings,
  });
}

type Dependencies = (id: string) => string[];

function dependencyIndex(source: Branch, pool: MessageLookup): Dependencies {
  const resultsByRequest = new Map<string, string[]>();
  for (const id of source.message_ids) {
    const body = pool(id)?.body;
    if (body?.message_type !== "tool_result") continue;
    const list = resultsByRequest.get(body.request_id) ?? [];
    list.push(id);
    resultsByRequest.set(body.request_id, list);
  }
  return (id) => {
    const body = pool(id)?.body;
    switch (body?.message_type) {
      case "tool_result":
        return [body.request_id];
      case "tool_request":
        return resultsByRequest.get(id) ?? [];
      default:
        return [];
    }
  };
}

function dependencyClosure(
  source: Branch,
  picked: readonly string[],
  onTarget: ReadonlySet<string>,
  dependencies: Dependencies,
): string[] {
  const onSource = new Set(source.message_ids);
  const included = new Set(picked);
  const added = new Set<string>();
  const queue = [...picked];
  for (let id = queue.pop(); id !== undefined; id = queue.pop()) {
    for (const dep of dependencies(id)) {
      if (included.has(dep) || onTarget.has(dep) || !onSource.has(dep)) continue;
      included.add(dep);
      added.add(dep);
      queue.push(dep);
    }
  }
  return source.message_ids.filter((id) => added.has(id));
}

/** Results in `ids` whose request is neither on the target nor among `ids` before them. */
function orphanResults(
  ids: readonly string[],
  onTarget: ReadonlySet<string>,
  pool: MessageLookup,
): string[] {
  const seen = new Set<string>();
  const orphans: string[] = [];
  for (const id of ids) {
    const body = pool(id)?.body;
    if (
      body?.message_type === "tool_result" &&
      !onTarget.has(body.request_id) &&
      !seen.has(body.request_id)
    ) {
      orphans.push(id);
    }
    seen.add(id);
  }
  return orphans;
}

function detachedCopy(
  message: ContextMessage,
  body: BodyOf<"tool_result">,
  pending: PendingCherryPick,
  clock: IdsAndClock,
): ContextMessage {
  const at = clock.now();
  const content = body.content.map((c) => (c.type === "text" ? c.text : `[${c.type}]`)).join("\n");
  return {
    id: clock.newId(),
    session_id: message.session_id,
    role: "system",
    body: {
      message_type: "system_control",
      kind: "notice",
      text: `Result of ${body.tool_name} (${body.status}), picked from branch ${pending.source_branch_id} without its request:\n${content}`,
      data: {
        merge_id: pending.merge_id,
        source_message_id: message.id,
        request_id: body.request_id,
        tool_call_id: body.tool_call_id,
      },
    },
    status: "complete",
    created_at: at,
    completed_at: at,
  };
}
