"use client";

import type { ApprovalDecision, ToolCallRequest } from "@arbor/core/browser";
import { useId, useState } from "react";
import { buttonClass, inputClass } from "../styles.js";

// The decision area of one waiting tool call (issue #27 case 2): Approve; Deny, or Deny with a
// reason the model receives; and "Always allow", scoped for bash as Claude Code's permission
// rules are: this exact command (`Bash(npm test)`) or commands starting with its program and
// subcommand (`Bash(npm test:*)`, offered by the server in `suggested_rules` only for a simple
// command). Any other tool's "Always allow" puts the tool on the session's white list.

/** The words of a rule as a person reads them: `Bash(npm test:*)` → `npm test`. */
export function ruleCommand(rule: string): string {
  const inner = rule.replace(/^Bash\(/, "").replace(/\)$/, "");
  return inner.endsWith(":*") ? inner.slice(0, -2) : inner;
}

export interface ApprovalActionsProps {
  call: ToolCallRequest;
  /** a decision was sent: the buttons stay disabled until the call's status changes */
  decided: boolean;
  onDecide: (decision: ApprovalDecision) => void;
}

export function ApprovalActions({ call, decided, onDecide }: ApprovalActionsProps) {
  const [asking, setAsking] = useState(false);
  const [reason, setReason] = useState("");
  const reasonId = useId();
  const rules = call.suggested_rules;
  const isBash = call.name === "bash";
  const deny = () => {
    const text = reason.trim();
    onDecide({
      tool_call_id: call.id,
      decision: "deny",
      ...(text !== "" ? { reason: text } : {}),
    });
  };
  return (
    <fieldset aria-label={`Approval for ${call.name}`} className="mt-2 flex flex-col gap-2">
      <div className="flex flex-wrap gap-2">
        <button
          type="button"
          className={buttonClass.primary}
          disabled={decided}
          onClick={() => onDecide({ tool_call_id: call.id, decision: "approve" })}
        >
          Approve
        </button>
        <button
          type="button"
          className={buttonClass.danger}
          disabled={decided}
          onClick={() => onDecide({ tool_call_id: call.id, decision: "deny" })}
        >
          Deny
        </button>
        <button
          type="button"
          className={buttonClass.secondary}
          disabled={decided}
          aria-expanded={asking}
          onClick={() => setAsking((open) => !open)}
        >
          Deny with a reason…
        </button>
        {isBash && rules !== undefined ? (
          <>
            <button
              type="button"
              className={buttonClass.secondary}
              disabled={decided}
              aria-label={`Always allow the command ${ruleCommand(rules.exact)}`}
              title={`Adds the rule ${rules.exact} to this session`}
              onClick={() =>
                onDecide({ tool_call_id: call.id, decision: "approve", rule: rules.exact })
              }
            >
              Always allow this command
            </button>
            {rules.prefix !== undefined && (
              <button
                type="button"
                className={buttonClass.secondary}
                disabled={decided}
                aria-label={`Always allow commands starting with ${ruleCommand(rules.prefix)}`}
                title={`Adds the rule ${rules.prefix} to this session`}
                onClick={() =>
                  rules.prefix !== undefined &&
                  onDecide({ tool_call_id: call.id, decision: "approve", rule: rules.prefix })
                }
              >
                Always allow <code className="font-mono">{ruleCommand(rules.prefix)} …</code>
              </button>
            )}
          </>
        ) : (
          <button
            type="button"
            className={buttonClass.secondary}
            disabled={decided}
            onClick={() => onDecide({ tool_call_id: call.id, decision: "approve", remember: true })}
          >
            {isBash ? "Always allow this command" : "Always allow this tool"}
          </button>
        )}
      </div>
      {asking && (
        <div className="flex flex-col gap-1">
          <label htmlFor={reasonId} className="text-xs text-zinc-600 dark:text-zinc-400">
            Why not? The model reads this with the denial.
          </label>
          <div className="flex flex-wrap gap-2">
            <textarea
              id={reasonId}
              rows={2}
              maxLength={2000}
              className={`${inputClass} min-w-0 flex-1`}
              value={reason}
              onChange={(event) => setReason(event.currentTarget.value)}
              onKeyDown={(event) => {
                if (event.key === "Enter" && !event.shiftKey && !event.nativeEvent.isComposing) {
                  event.preventDefault();
                  if (!decided) deny();
                }
              }}
            />
            <button
              type="button"
              className={buttonClass.danger}
              disabled={decided || reason.trim() === ""}
              onClick={deny}
            >
              Deny with this reason
            </button>
          </div>
        </div>
      )}
    </fieldset>
  );
}
