"use client";

import type { BodyOf } from "@arbor/core/browser";
import { useState } from "react";
import { buttonClass } from "../styles.js";
import { Markdown } from "./markdown.js";

export interface PlanCardProps {
  messageId: string;
  body: BodyOf<"plan">;
  /** offered while the session is in Plan mode and this plan is the latest */
  onApprovePlan?: ((messageId: string) => void) | undefined;
}

export function PlanCard({ messageId, body, onApprovePlan }: PlanCardProps) {
  const [approved, setApproved] = useState(false);
  return (
    <section aria-label="Plan" className="flex flex-col gap-2">
      <h3 className="text-sm font-semibold text-violet-700 dark:text-violet-300">Plan</h3>
      {body.summary !== "" && <Markdown text={body.summary} />}
      <ol aria-label="Plan steps" className="ml-5 list-decimal space-y-1 text-sm">
        {body.steps.map((step, index) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: steps are positional and never reorder
          <li key={index}>
            <span className="font-medium">{step.title}</span>
            {step.detail && (
              <p className="text-zinc-600 dark:text-zinc-400 whitespace-pre-wrap">{step.detail}</p>
            )}
          </li>
        ))}
      </ol>
      {onApprovePlan && (
        <div>
          <button
            type="button"
            className={buttonClass.primary}
            disabled={approved}
            onClick={() => {
              setApproved(true);
              onApprovePlan(messageId);
            }}
          >
            Approve plan and switch to Act
          </button>
        </div>
      )}
    </section>
  );
}
