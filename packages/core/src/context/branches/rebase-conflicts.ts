import type { MergeConflict } from "../../model/merge-types.js";
import type { ContextMessage, ToolCallRequest } from "../../model/message-types.js";
import type { MessageLookup } from "./types.js";

// What a rebase conflict is (see also docs/decisions/0004-merge-conflicts.md). The rebase replays
// the source's messages after the common ancestor ("replay") behind the target's own messages
// after it ("target tail"). A conflict is a fact about the two sides that makes that naive
// result either wrong as a conversation or invalid as a branch:
//
// divergent_continuation: both sides put a message of the SAME ROLE directly after the ancestor,
//   i.e. they took the same turn differently (two answers to one question, two different next
//   questions, two results of one tool call). The conflict covers both whole tails, because
//   everything later on a side builds on its first step. Not raised when the source's first
//   step is already on the target (an earlier merge settled it).
// conflicting_file_edit: both sides ran the same file-changing tool (see isFileEdit) on the same
//   path, and the calls' arguments or results differ. One conflict per tool and path; each side lists the
//   tool_request messages involved with all their results (so dropping a side never leaves a
//   result without its request). Identical edits on both sides are not a conflict.
// broken_dependency: a replayed tool_result whose tool_request is not on the target nor replayed
//   before it, or that answers a call the target already answered (a call answered twice is
//   invalid for every provider). Keeping it as it is cannot give a valid branch.
//
// Detection is linear in the lengths of the two tails.

/** Which tool calls change a file (default: the name says write/edit/patch/…, and a path is given). */
export type FileEditPredicate = (call: ToolCallRequest) => boolean;

const FILE_EDIT_NAME = /(write|edit|patch|replace|create|delete|remove|move|rename)/i;
const PATH_KEYS = ["path", "file_path", "filePath", "file", "filename", "target_file"] as const;

export const defaultIsFileEdit: FileEditPredicate = (call) =>
  FILE_EDIT_NAME.test(call.name) && filePathOf(call) !== undefined;

export function filePathOf(call: ToolCallRequest): string | undefined {
  for (const key of PATH_KEYS) {
    const value = call.arguments[key];
    if (typeof value === "string" && value.length > 0) return value;
  }
  return undefined;
}

export interface ConflictScanInput {
  merge_id: string;
  pool: MessageLookup;
  /** the target's whole list and the index where its own messages begin (after the ancestor) */
  target_ids: readonly string[];
  fork_index: number;
  /** the source's message directly after the ancestor (undefined if none) */
  source_first_id: string | undefined;
  /** the source's messages after the ancestor that are not on the target, in order */
  replay_ids: readonly string[];
  isFileEdit: FileEditPredicate;
}

export function detectRebaseConflicts(input: ConflictScanInput): MergeConflict[] {
  const conflicts: MergeConflict[] = [];
  let count = 0;
  const nextId = (): string => `${input.merge_id}/c${++count}`;
  const replaySet = new Set(input.replay_ids);
  const targetTail = input.target_ids.slice(input.fork_index).filter((id) => !replaySet.has(id));

  const divergent = divergentContinuation(input, targetTail, nextId);
  if (divergent) conflicts.push(divergent);
  for (const c of fileEditConflicts(input, targetTail, nextId)) conflicts.push(c);
  for (const c of brokenDependencies(input, nextId)) conflicts.push(c);
  return conflicts;
}

function divergentContinuation(
  input: ConflictScanInput,
  targetTail: readonly string[],
  nextId: () => string,
): MergeConflict | undefined {
  const sourceFirst = input.source_first_id;
  const targetFirst = input.target_ids[input.fork_index];
  if (sourceFirst === undefined || targetFirst === undefined) return undefined;
  if (input.replay_ids[0] !== sourceFirst) return undefined; // already merged earlier
  const s = input.pool(sourceFirst);
  const t = input.pool(targetFirst);
  if (!s || !t || s.role !== t.role) return undefined;
  return conflict(input.pool, {
    conflict_id: nextId(),
    kind: "divergent_continuation",
    source_message_ids: [...input.replay_ids],
    target_message_ids: [...targetTail],
    description: `both branches continued after the common ancestor with a ${s.role} message (${targetFirst} on the target, ${sourceFirst} on the source)`,
    suggested_resolutions: [
      {
        resolution: "keep_target",
        description: "keep the target as it is; take nothing of the source's continuation",
      },
      {
        resolution: "keep_source",
        description:
          "replace the target's continuation with the source's (the target's messages stay in the pool, off this branch)",
      },
      { resolution: "keep_both", description: "the target's continuation, then the source's" },
      {
        resolution: "custom",
        description:
          "keep the target's continuation and put a note with your text where the source's would go",
      },
    ],
  });
}

interface EditSide {
  requests: Set<string>;
  signatures: Set<string>;
}

function fileEditConflicts(
  input: ConflictScanInput,
  targetTail: readonly string[],
  nextId: () => string,
): MergeConflict[] {
  const source = fileEdits(input.replay_ids, input.pool, input.isFileEdit);
  const target = fileEdits(targetTail, input.pool, input.isFileEdit);
  const out: MergeConflict[] = [];
  for (const [key, s] of source.edits) {
    const t = target.edits.get(key);
    if (!t || sameSet(s.signatures, t.signatures)) continue;
    const [name, path] = key.split("\u0000") as [string, string];
    out.push(
      conflict(input.pool, {
        conflict_id: nextId(),
        kind: "conflicting_file_edit",
        path,
        source_message_ids: withResults(input.replay_ids, s.requests, source.resultsOf),
        target_message_ids: withResults(targetTail, t.requests, target.resultsOf),
        description: `both branches ran ${name} on ${path} with different arguments or results`,
        suggested_resolutions: [
          {
            resolution: "keep_target",
            description: `drop the source's ${name} calls on ${path} (with their results)`,
          },
          {
            resolution: "keep_source",
            description: `drop the target's ${name} calls on ${path} (with their results)`,
          },
          { resolution: "keep_both", description: "keep both; the source's edit comes last" },
          {
            resolution: "custom",
            description: "drop the source's calls and put a note with your text in their place",
          },
        ],
      }),
    );
  }
  return out;
}

/** Per (tool name, path): the requests making such calls and a signature of each call. */
function fileEdits(ids: readonly string[], pool: MessageLookup, isFileEdit: FileEditPredicate) {
  const resultText = new Map<string, string>();
  const resultsOf = new Map<string, string[]>();
  for (const id of ids) {
    const body = pool(id)?.body;
    if (body?.message_type !== "tool_result") continue;
    resultText.set(body.tool_call_id, `${body.status}:${JSON.stringify(body.content)}`);
    resultsOf.set(body.request_id, [...(resultsOf.get(body.request_id) ?? []), id]);
  }
  const edits = new Map<string, EditSide>();
  for (const id of ids) {
    const body = pool(id)?.body;
    if (body?.message_type !== "tool_request") continue;
    for (const call of body.calls) {
      const path = filePathOf(call);
      if (path === undefined || !isFileEdit(call)) continue;
      const key = `${call.name}\u0000${path}`;
      const side = edits.get(key) ?? { requests: new Set<string>(), signatures: new Set<string>() };
      side.requests.add(id);
      side.signatures.add(`${stableJson(call.arguments)}\u0000${resultText.get(call.id) ?? ""}`);
      edits.set(key, side);
    }
  }
  return { edits, resultsOf };
}

function brokenDependencies(input: ConflictScanInput, nextId: () => string): MergeConflict[] {
  const onTarget = new Set(input.target_ids);
  const answeredOnTarget = new Map<string, string>();
  for (const id of input.target_ids) {
    const body = input.pool(id)?.body;
    if (body?.message_type === "tool_result") answeredOnTarget.set(body.tool_call_id, id);
  }
  const replayedBefore = new Set<string>();
  const out: MergeConflict[] = [];
  for (const id of input.replay_ids) {
    const body = input.pool(id)?.body;
    replayedBefore.add(id);
    if (body?.message_type !== "tool_result") continue;
    const targetAnswer = answeredOnTarget.get(body.tool_call_id);
    if (targetAnswer !== undefined) {
      out.push(
        conflict(input.pool, {
          conflict_id: nextId(),
          kind: "broken_dependency",
          source_message_ids: [id],
          target_message_ids: [targetAnswer],
          description: `tool call ${body.tool_call_id} (${body.tool_name}) is answered on both branches`,
          suggested_resolutions: [
            {
              resolution: "keep_target",
              description: "keep the target's result, drop the source's",
            },
            {
              resolution: "keep_source",
              description: "drop the target's result, keep the source's",
            },
            {
              resolution: "custom",
              description: "keep the target's result and add a note with your text",
            },
          ],
        }),
      );
    } else if (!onTarget.has(body.request_id) && !replayedBefore.has(body.request_id)) {
      out.push(
        conflict(input.pool, {
          conflict_id: nextId(),
          kind: "broken_dependency",
          source_message_ids: [id],
          target_message_ids: [],
          description: `tool result ${id} answers request ${body.request_id}, which is not on the target after the replay`,
          suggested_resolutions: [
            { resolution: "keep_target", description: "leave the tool result out" },
            {
              resolution: "custom",
              description: "leave it out and add a note with your text in its place",
            },
          ],
        }),
      );
    }
  }
  return out;
}

function conflict(pool: MessageLookup, c: Omit<MergeConflict, "timestamps">): MergeConflict {
  const stamp = (side: "source" | "target") => (id: string) => ({
    message_id: id,
    side,
    created_at: (pool(id) as ContextMessage | undefined)?.created_at ?? "",
  });
  return {
    ...c,
    timestamps: [
      ...c.source_message_ids.map(stamp("source")),
      ...c.target_message_ids.map(stamp("target")),
    ],
  };
}

function withResults(
  order: readonly string[],
  requests: ReadonlySet<string>,
  resultsOf: ReadonlyMap<string, string[]>,
): string[] {
  const wanted = new Set(requests);
  for (const r of requests) for (const id of resultsOf.get(r) ?? []) wanted.add(id);
  return order.filter((id) => wanted.has(id));
}

function sameSet(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  return a.size === b.size && [...a].every((x) => b.has(x));
}

/** JSON with object keys sorted, so argument order does not make two edits differ. */
function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}
