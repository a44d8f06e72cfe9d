"use client";

import { type ReactNode, useState } from "react";
import { buttonClass } from "./styles";

// A secret the server shows this once (a new personal token, an invitation link): what it is, the
// value itself and a Copy button. Settings › Tokens and Admin › People both use it.

export function ShownOnce({
  value,
  testId,
  children,
}: {
  value: string;
  /** the data-testid of the value's <code>, as the e2e suites find it */
  testId: string;
  /** the sentence above the value: what it is, and that it is shown once */
  children: ReactNode;
}) {
  // keyed by the value: a new secret starts un-copied
  const [copiedValue, setCopiedValue] = useState<string | undefined>();
  return (
    <div
      role="status"
      className="mt-3 rounded-md border border-emerald-300 bg-emerald-50 p-3 text-sm dark:border-emerald-800 dark:bg-emerald-950"
    >
      <p className="mb-2">{children}</p>
      <div className="flex items-center gap-2">
        <code data-testid={testId} className="break-all font-mono text-xs">
          {value}
        </code>
        <button
          type="button"
          className={buttonClass.secondary}
          onClick={() => {
            void navigator.clipboard?.writeText(value).then(() => setCopiedValue(value));
          }}
        >
          {copiedValue === value ? "Copied" : "Copy"}
        </button>
      </div>
    </div>
  );
}
