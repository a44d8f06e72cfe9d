"use client";

import { useId } from "react";
import { buttonClass } from "./styles.js";

// The session settings' approval rules (issue #27 case 2), self-contained so the dialog may place
// it in any group: whether read-only tools run without asking (`approve_read_only`), and the
// scoped bash rules "Always allow" added (`allow_rules`), each removable. Edits a draft: the
// dialog's Save sends them.

export interface ApprovalRulesDraft {
  approveReadOnly: boolean;
  allowRules: readonly string[];
}

export interface ApprovalRulesFieldsProps {
  draft: ApprovalRulesDraft;
  onChange: (draft: ApprovalRulesDraft) => void;
}

/** How a rule reads to a person: `Bash(npm test:*)` → commands starting with `npm test`. */
function ruleMeaning(rule: string): string {
  const inner = rule.replace(/^Bash\(/, "").replace(/\)$/, "");
  return inner.endsWith(":*")
    ? `commands starting with ${inner.slice(0, -2)}`
    : `exactly the command ${inner}`;
}

export function ApprovalRulesFields({ draft, onChange }: ApprovalRulesFieldsProps) {
  const hintId = useId();
  const rulesId = useId();
  return (
    <fieldset className="flex flex-col gap-2" aria-describedby={hintId}>
      <legend className="mb-1 text-sm font-medium">Approval rules</legend>
      <label className="flex items-center gap-2 text-sm">
        <input
          type="checkbox"
          checked={draft.approveReadOnly}
          onChange={(event) => onChange({ ...draft, approveReadOnly: event.currentTarget.checked })}
        />
        Run read-only tools without asking
      </label>
      <p id={hintId} className="text-xs text-zinc-600 dark:text-zinc-400">
        Reading files, searching and the codebase tools (and MCP tools marked read-only) run at
        once, in Act and Plan mode; each is recorded as approved by this rule. Off: they ask like
        every other tool.
      </p>
      <span id={rulesId} className="text-sm">
        Always-allowed commands
      </span>
      {draft.allowRules.length === 0 ? (
        <p className="text-xs text-zinc-600 dark:text-zinc-400">
          None yet. “Always allow” on a command’s approval adds one here.
        </p>
      ) : (
        <ul aria-labelledby={rulesId} className="flex flex-col gap-1">
          {draft.allowRules.map((rule) => (
            <li key={rule} className="flex items-center justify-between gap-2 text-sm">
              <span className="min-w-0">
                <code className="font-mono break-all">{rule}</code>
                <span className="ml-2 text-xs text-zinc-600 dark:text-zinc-400">
                  {ruleMeaning(rule)}
                </span>
              </span>
              <button
                type="button"
                className={buttonClass.ghost}
                aria-label={`Remove rule ${rule}`}
                onClick={() =>
                  onChange({ ...draft, allowRules: draft.allowRules.filter((r) => r !== rule) })
                }
              >
                Remove
              </button>
            </li>
          ))}
        </ul>
      )}
      <p className="text-xs text-zinc-600 dark:text-zinc-400">
        A rule never covers a command joined to another (; && || |), a substitution ($( ) or
        backquotes) or a redirection: those always ask.
      </p>
    </fieldset>
  );
}
