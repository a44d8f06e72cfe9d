"use client";

import type { LinkShare, SharedPerson, ShareRole } from "@arbor/core/browser";
import * as Dialog from "@radix-ui/react-dialog";
import { useId, useState } from "react";
import { CopyButton } from "./copy-button.js";
import { DialogPanel } from "./dialog.js";
import { buttonClass, inputClass } from "./styles.js";

// The session menu's "Share…" (docs/sharing.md): the people a session is shared with and its
// read-only links, each with who made it and when, and Revoke; a person added by email with a
// role; a link to the current branch with an optional expiry, whose address is shown once. Props
// in, callbacks out: the app calls the API and refetches.

export interface ShareDialogProps {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  people: readonly SharedPerson[];
  links: readonly LinkShare[];
  /** the branch a new link shows */
  branchName: string;
  /** rejects with a message to show (an unknown email) */
  onAddPerson: (email: string, role: ShareRole) => Promise<void>;
  onRemovePerson: (userId: string) => void;
  /** resolves to the new link's address, shown once */
  onCreateLink: (expiresAt: string | undefined) => Promise<string>;
  onRevokeLink: (linkId: string) => void;
}

function when(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString();
}

const rowClass =
  "flex flex-wrap items-center justify-between gap-2 rounded-md border border-zinc-200 px-2 py-1.5 text-sm dark:border-zinc-800";
const metaClass = "text-xs text-zinc-500 dark:text-zinc-400";

export function ShareDialog({
  open,
  onOpenChange,
  people,
  links,
  branchName,
  onAddPerson,
  onRemovePerson,
  onCreateLink,
  onRevokeLink,
}: ShareDialogProps) {
  const emailId = useId();
  const roleId = useId();
  const expiryId = useId();
  const [email, setEmail] = useState("");
  const [role, setRole] = useState<ShareRole>("viewer");
  const [problem, setProblem] = useState<string | undefined>(undefined);
  const [expiry, setExpiry] = useState("");
  const [created, setCreated] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const openLinks = links.filter((link) => link.revoked_at === null);
  return (
    <Dialog.Root
      open={open}
      onOpenChange={(next) => {
        // the link's address is shown once: closing forgets it
        if (!next) setCreated(undefined);
        onOpenChange(next);
      }}
    >
      <DialogPanel
        title="Share session"
        description="Viewers read it; collaborators also send, approve and branch. Only you share it."
      >
        <section aria-label="People" className="flex flex-col gap-2">
          <h3 className="text-sm font-semibold">People</h3>
          {people.length === 0 && <p className={metaClass}>Not shared with anyone.</p>}
          <ul className="flex flex-col gap-1">
            {people.map((person) => (
              <li key={person.user_id} className={rowClass}>
                <span className="min-w-0">
                  <span className="font-medium">{person.name}</span>{" "}
                  <span className={metaClass}>{person.email}</span>
                  <span className="block text-xs text-zinc-500 dark:text-zinc-400">
                    {person.role} · shared by {person.granted_by.name} on {when(person.granted_at)}
                  </span>
                </span>
                <button
                  type="button"
                  className={buttonClass.ghost}
                  aria-label={`Revoke ${person.name}'s access`}
                  onClick={() => onRemovePerson(person.user_id)}
                >
                  Revoke
                </button>
              </li>
            ))}
          </ul>
          <form
            className="flex flex-wrap items-end gap-2"
            onSubmit={(event) => {
              event.preventDefault();
              if (email.trim() === "") return;
              setBusy(true);
              setProblem(undefined);
              onAddPerson(email.trim(), role)
                .then(
                  () => setEmail(""),
                  (error: unknown) => setProblem(error instanceof Error ? error.message : "failed"),
                )
                .finally(() => setBusy(false));
            }}
          >
            <label htmlFor={emailId} className="flex min-w-48 flex-1 flex-col gap-1 text-xs">
              Email
              <input
                id={emailId}
                type="email"
                className={inputClass}
                value={email}
                onChange={(event) => setEmail(event.target.value)}
              />
            </label>
            <label htmlFor={roleId} className="flex flex-col gap-1 text-xs">
              Role
              <select
                id={roleId}
                className={inputClass}
                value={role}
                onChange={(event) => setRole(event.target.value as ShareRole)}
              >
                <option value="viewer">Viewer</option>
                <option value="collaborator">Collaborator</option>
              </select>
            </label>
            <button type="submit" className={buttonClass.primary} disabled={busy}>
              Share
            </button>
          </form>
          {problem !== undefined && (
            <p role="alert" className="text-xs text-red-700 dark:text-red-400">
              {problem}
            </p>
          )}
        </section>

        <section aria-label="Links" className="flex flex-col gap-2">
          <h3 className="text-sm font-semibold">Read-only links</h3>
          {openLinks.length === 0 && <p className={metaClass}>No open links.</p>}
          <ul className="flex flex-col gap-1">
            {openLinks.map((link) => (
              <li key={link.id} className={rowClass}>
                <span className="min-w-0">
                  <span className="font-medium">Branch {link.branch_name || "(deleted)"}</span>
                  <span className="block text-xs text-zinc-500 dark:text-zinc-400">
                    made by {link.created_by.name} on {when(link.created_at)}
                    {link.expires_at !== null ? ` · expires ${when(link.expires_at)}` : ""}
                  </span>
                </span>
                <button
                  type="button"
                  className={buttonClass.ghost}
                  aria-label={`Revoke the link to ${link.branch_name}`}
                  onClick={() => onRevokeLink(link.id)}
                >
                  Revoke
                </button>
              </li>
            ))}
          </ul>
          <form
            className="flex flex-wrap items-end gap-2"
            onSubmit={(event) => {
              event.preventDefault();
              setBusy(true);
              setProblem(undefined);
              const expiresAt = expiry === "" ? undefined : new Date(expiry).toISOString();
              onCreateLink(expiresAt)
                .then(
                  (url) => setCreated(url),
                  (error: unknown) => setProblem(error instanceof Error ? error.message : "failed"),
                )
                .finally(() => setBusy(false));
            }}
          >
            <label htmlFor={expiryId} className="flex flex-col gap-1 text-xs">
              Expires (optional)
              <input
                id={expiryId}
                type="datetime-local"
                className={inputClass}
                value={expiry}
                onChange={(event) => setExpiry(event.target.value)}
              />
            </label>
            <button type="submit" className={buttonClass.secondary} disabled={busy}>
              Create link to {branchName}
            </button>
          </form>
          {created !== undefined && (
            <div className="flex flex-col gap-1 rounded-md bg-sky-50 p-2 text-xs dark:bg-sky-950">
              <span>Copy it now: it is not shown again.</span>
              <div className="flex items-center gap-2">
                <input
                  readOnly
                  aria-label="New link"
                  className={`${inputClass} font-mono`}
                  value={created}
                  onFocus={(event) => event.target.select()}
                />
                <CopyButton
                  label="Copy link"
                  className={buttonClass.secondary}
                  getText={() => created}
                />
              </div>
            </div>
          )}
        </section>
      </DialogPanel>
    </Dialog.Root>
  );
}
