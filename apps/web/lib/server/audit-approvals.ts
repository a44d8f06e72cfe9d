import type { ApprovalDecision, Operation, Session, SessionEvent } from "@arbor/core";
import { type AuditRuntime, audit } from "./audit";
import type { Actor } from "./people/actor";

// POST /api/sessions/{id}/approvals: one audit row per decided call (tool_approved /
// tool_denied), written when the operation's events show the decision stored, so a refused
// decision (not waiting, already decided) leaves no row. The rows are written as the answer's
// events pass, before the next event is sent (the operation itself never waits for them); when
// the client leaves early, the events are read on in the background until every decision is seen.

interface Decided {
  id: string;
  approval: "approved" | "denied";
}

/**
 * Starts the decision (`decide`) and answers its operation, events unchanged, with an audit row
 * written for each decision they show stored. Tool names are read from the session's waiting
 * calls before the decision starts.
 */
export function auditedDecisions<R>(
  runtime: AuditRuntime,
  actor: Actor,
  session: Session,
  decisions: readonly ApprovalDecision[],
  decide: () => Operation<R>,
): Operation<R> {
  const names = toolNames(session);
  const operation = decide();
  const asked = new Set(decisions.map((d) => d.tool_call_id));
  const written = new Set<string>();
  const record = async (event: SessionEvent) => {
    for (const { id, approval } of decidedIn(event, asked)) {
      if (written.has(id)) continue;
      written.add(id);
      await audit(
        runtime,
        actor,
        approval === "approved" ? "tool_approved" : "tool_denied",
        `session:${session.id}`,
        { tool_call_id: id, tool: names.get(id) ?? toolNameIn(event, id) ?? null },
      );
    }
  };
  return {
    result: operation.result,
    [Symbol.asyncIterator]() {
      const inner = operation[Symbol.asyncIterator]();
      return {
        async next() {
          const step = await inner.next();
          if (!step.done) await record(step.value);
          return step;
        },
        async return() {
          // the client left before every decision's event came: read on in the background until
          // they have (or the operation ends), so a stored decision is never left unaudited
          if (written.size < asked.size) {
            void (async () => {
              try {
                while (written.size < asked.size) {
                  const step = await inner.next();
                  if (step.done) break;
                  await record(step.value);
                }
              } finally {
                await inner.return?.();
              }
            })().catch(() => undefined);
            return { value: undefined, done: true };
          }
          await inner.return?.();
          return { value: undefined, done: true };
        },
      };
    },
  };
}

/** call id → tool name of the calls waiting at the top level (nested ones name themselves). */
function toolNames(session: Session): Map<string, string> {
  const state = session.state;
  if (state.type !== "AwaitingToolApproval") return new Map();
  return new Map(
    state.pending_requests.map((id, i): [string, string] => [id, state.tool_names[i] ?? ""]),
  );
}

/**
 * The decisions an event shows stored: a context_update's `metadata.decisions` (top-level calls),
 * or a nested call's own event (a sub-agent's, a candidate's, a fold's) with status approved or
 * denied and its call id.
 */
function decidedIn(event: SessionEvent, asked: ReadonlySet<string>): Decided[] {
  const payload = event.payload as Record<string, unknown>;
  if (event.name === "context_update") {
    const metadata = payload.metadata as { decisions?: Record<string, { approval?: unknown }> };
    return Object.entries(metadata?.decisions ?? {}).flatMap(([id, d]) =>
      asked.has(id) && (d.approval === "approved" || d.approval === "denied")
        ? [{ id, approval: d.approval }]
        : [],
    );
  }
  const status = payload.status;
  if (status !== "approved" && status !== "denied") return [];
  const id = [...asked].find((callId) => mentions(payload, callId));
  return id === undefined ? [] : [{ id, approval: status }];
}

/** Whether a payload (or an object one level inside it) names this call id. */
function mentions(payload: Record<string, unknown>, callId: string): boolean {
  const keys = ["id", "call_id", "tool_call_id"];
  const own = (value: Record<string, unknown>) => keys.some((key) => value[key] === callId);
  if (own(payload)) return true;
  return Object.values(payload).some(
    (value) => value !== null && typeof value === "object" && own(value as Record<string, unknown>),
  );
}

/** A nested call's tool name, from its event: `name` or `tool_name` beside its id. */
function toolNameIn(event: SessionEvent, callId: string): string | undefined {
  const payload = event.payload as Record<string, unknown>;
  const candidates = [
    payload,
    ...Object.values(payload).filter(
      (value): value is Record<string, unknown> => value !== null && typeof value === "object",
    ),
  ];
  for (const value of candidates) {
    if (!["id", "call_id", "tool_call_id"].some((key) => value[key] === callId)) continue;
    const name = value.name ?? value.tool_name;
    if (typeof name === "string") return name;
  }
  return undefined;
}
