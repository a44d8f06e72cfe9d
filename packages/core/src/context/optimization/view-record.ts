import type { ContextMessage } from "../../model/message-types.js";
import type { OptimizationView } from "../../store/types.js";

// Reading optimized views back: expanding one summary for the UI ("History optimized · … ·
// show"), and rebuilding a branch's current view from its stored record so the next optimization
// builds on the existing summaries instead of summarizing the same messages again.

function replacesOf(message: ContextMessage): readonly string[] | undefined {
  const body = message.body;
  return body.message_type === "system_control" && body.kind === "summary"
    ? body.replaces
    : undefined;
}

/**
 * The view with summary `summaryId` replaced by the messages it stands for, taken from the pool
 * (one level: an earlier summary among them stays a summary and can be expanded in turn). A
 * masked tool result is expanded too when `records` say what it masks.
 * Throws when the id is not a summary of the view or a replaced message is not in the pool.
 */
export function expandSummary(
  view: readonly ContextMessage[],
  summaryId: string,
  pool: ReadonlyMap<string, ContextMessage>,
  records: readonly OptimizationView[] = [],
): ContextMessage[] {
  const at = view.findIndex((m) => m.id === summaryId);
  const recorded = records
    .flatMap((record) => record.summaries)
    .find((s) => s.summary_message_id === summaryId)?.replaces;
  const replaces = at < 0 ? undefined : (replacesOf(view[at]!) ?? recorded);
  if (replaces === undefined) throw new Error(`${summaryId} is not a summary in this view`);
  const originals = replaces.map((id) => {
    const original = pool.get(id);
    if (!original) throw new Error(`summary ${summaryId} replaces ${id}, which is not in the pool`);
    return original;
  });
  return [...view.slice(0, at), ...originals, ...view.slice(at + 1)];
}

/**
 * The view a branch's records describe, applied to its messages as they are now (messages added
 * after the last record are kept). Each record describes one optimization, which started from the
 * view the earlier ones left, so pass ALL of the branch's records, oldest first. Each summary sits
 * where the first message it covers was; a summary replacing earlier summaries covers what those
 * covered too. Summaries missing from the pool are ignored (their messages stay), so a damaged
 * record degrades to more history, never to loss.
 */
export function viewFromRecords(
  messages: readonly ContextMessage[],
  records: readonly OptimizationView[],
  pool: ReadonlyMap<string, ContextMessage>,
): ContextMessage[] {
  const coveredBy = new Map<string, ContextMessage>();
  // what each recorded message stands for: a summary, or a masked tool result (which has no
  // `replaces` of its own: its record says what it masks)
  const standsFor = new Map<string, readonly string[]>();
  for (const record of records) {
    for (const { summary_message_id, replaces } of record.summaries) {
      standsFor.set(summary_message_id, replaces);
    }
  }
  const cover = (ids: readonly string[], summary: ContextMessage, depth: number): void => {
    for (const id of ids) {
      coveredBy.set(id, summary);
      const inner = pool.get(id);
      const nested = standsFor.get(id) ?? (inner ? replacesOf(inner) : undefined);
      if (nested && depth < 32) cover(nested, summary, depth + 1);
    }
  };
  const dropped = new Set<string>();
  for (const record of records) {
    for (const { summary_message_id, replaces } of record.summaries) {
      const summary = pool.get(summary_message_id);
      if (summary) cover(replaces, summary, 0);
    }
    for (const id of record.dropped) dropped.add(id);
  }
  const placed = new Set<ContextMessage>();
  const view: ContextMessage[] = [];
  for (const message of messages) {
    if (dropped.has(message.id)) continue;
    const summary = coveredBy.get(message.id);
    if (!summary) view.push(message);
    else if (!placed.has(summary) && !dropped.has(summary.id)) {
      placed.add(summary);
      view.push(summary);
    }
  }
  return view;
}
