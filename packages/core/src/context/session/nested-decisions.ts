import type { PersonRef } from "../../model/person.js";
import type { SessionEventBody } from "../../protocol/events.js";
import type { ApprovalDecision } from "../../protocol/requests.js";
import type { MessageLifecycleUpdate } from "../../store/types.js";
import { type RememberedSettings, rememberApproval } from "./approval-policy.js";
import {
  type Operation,
  OperationChannel,
  type OperationError,
  type OperationResult,
} from "./channel.js";
import type { NestedApprovals } from "./nested-approvals.js";
import type { RunResult } from "./run-driver.js";
import type { StoredSession } from "./stored-session.js";

// Decisions on calls held inside the running operation (nested-approvals.ts): an ask-N-ways
// candidate's, a fold's, a sub-agent's. They are not queued behind the operation, which waits
// for them (docs/decisions/0067: one of the parts behind the Session facade).

/** The decisions among `decisions` that name a call held (or decided) inside the running operation. */
export function decidesNested(
  nested: NestedApprovals,
  decisions: readonly ApprovalDecision[],
): boolean {
  return decisions.some(
    (d) => nested.holds(d.tool_call_id) || nested.decidedAs(d.tool_call_id) !== undefined,
  );
}

/**
 * Decisions for calls that wait inside the running operation (an ask-N-ways candidate's, a
 * fold's: nested-approvals.ts): handed over at once, not queued behind the operation, which
 * waits for them. Each decision stores its call's event (candidate_tool, fold_tool) and, for a
 * fold, the approval on its stored tool_request; `remember` adds the tool to the white list.
 * A call decided before is refused (it runs at most once); calls named here that wait nowhere
 * are refused too; the others are still decided.
 */
export function decideNested(
  core: StoredSession,
  nested: NestedApprovals,
  decisions: readonly ApprovalDecision[],
  by: PersonRef | null,
  reportedError: (error: unknown) => OperationError,
): Operation<RunResult> {
  const channel = new OperationChannel<RunResult>();
  void (async () => {
    const events: SessionEventBody[] = [];
    const updates: MessageLifecycleUpdate[] = [];
    const refused: string[] = [];
    const claimed: ApprovalDecision[] = [];
    const stored: Promise<void>[] = [];
    let remembered: RememberedSettings = {
      approval_policy: core.config.approval_policy,
      allow_rules: core.config.allow_rules,
    };
    for (const d of decisions) {
      const before = nested.decidedAs(d.tool_call_id);
      if (before !== undefined) {
        refused.push(`tool call ${d.tool_call_id} was already ${before}`);
        continue;
      }
      // a nested call's arguments are not at hand: bash remembers nothing, a rule is refused
      const outcome =
        d.decision === "approve"
          ? rememberApproval(
              remembered,
              { name: nested.toolNameOf(d.tool_call_id) ?? "", arguments: undefined },
              d,
            )
          : ({ ok: true, settings: remembered } as const);
      if (!outcome.ok) {
        refused.push(`tool call ${d.tool_call_id}: ${outcome.error}`);
        continue;
      }
      const call = nested.claim(d.tool_call_id, d.decision);
      if (call === undefined) {
        refused.push(`tool call ${d.tool_call_id} is not waiting for approval`);
        continue;
      }
      claimed.push(d);
      const status = d.decision === "approve" ? "approved" : "denied";
      remembered = outcome.settings;
      events.push(call.decisionEvent(status, by));
      const update = call.rowUpdate?.(status, by, d.decision === "deny" ? d.reason : undefined);
      if (update !== undefined) updates.push(update);
      if (call.stored !== undefined) stored.push(call.stored());
    }
    let result: OperationResult<RunResult> = {
      ok: true,
      value: { type: "not_run", reason: "nested_decision" },
    };
    try {
      // the calls' own rows and events first; the decisions are stored before the calls go on
      await Promise.all(stored);
      const changed =
        remembered.approval_policy !== core.config.approval_policy ||
        remembered.allow_rules !== core.config.allow_rules;
      const write = {
        ...(updates.length > 0 ? { message_updates: updates } : {}),
        ...(changed ? { session: { config: { ...core.config, ...remembered } } } : {}),
      };
      const hasWrite = updates.length > 0 || changed;
      for (const event of await core.commit({ events, ...(hasWrite ? { write } : {}) })) {
        channel.push(event);
      }
      for (const d of claimed) {
        nested.decide(d.tool_call_id, d.decision, d.decision === "deny" ? d.reason : undefined, by);
      }
    } catch (error) {
      for (const d of claimed) nested.release(d.tool_call_id);
      const reported = reportedError(error);
      channel.push({ name: "error", sequence: 0, payload: { context_id: core.id, ...reported } });
      result = { ok: false, error: reported };
    }
    if (refused.length > 0 && result.ok) {
      const message = refused.join("; ");
      channel.push({
        name: "error",
        sequence: 0,
        payload: { context_id: core.id, code: "invalid_request", message, recoverable: true },
      });
      if (claimed.length === 0) {
        result = { ok: false, error: { code: "invalid_request", message, recoverable: true } };
      }
    }
    channel.finish(result);
  })();
  return channel;
}
