"use client";

import type {
  BudgetResponse,
  CreatedInvitationResponse,
  InvitationResponse,
  PersonResponse,
} from "@arbor/core/browser";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { type FormEvent, useState } from "react";
import { ApiError, api, errorText } from "@/lib/client/api";
import { AppHeader } from "../app-header";
import { ShownOnce } from "../shown-once";
import { buttonClass, inputClass } from "../styles";
import { AdminOnly } from "./admin-only";

// Admin › People (docs/accounts.md): everyone of the install with their role, whether they may
// sign in and their monthly token budget; invitations made, shown once as a link, and revoked.

const sectionClass =
  "rounded-lg border border-zinc-200 bg-white p-4 dark:border-zinc-800 dark:bg-zinc-900";
const headingClass = "mb-3 text-base font-semibold text-zinc-900 dark:text-zinc-50";
const labelClass = "block text-sm text-zinc-700 dark:text-zinc-300";
type AssignableRole = "admin" | "member" | "viewer";

export function AdminPeopleView() {
  const queryClient = useQueryClient();
  const people = useQuery({
    queryKey: ["admin", "people"],
    queryFn: () => api.listPeople(),
    retry: false,
  });
  const invitations = useQuery({
    queryKey: ["admin", "invitations"],
    queryFn: () => api.listInvitations(),
    retry: false,
  });
  const [error, setError] = useState<string | undefined>();
  const forbidden = people.error instanceof ApiError && people.error.code === "forbidden";

  const refresh = () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: ["admin", "people"] }),
      queryClient.invalidateQueries({ queryKey: ["admin", "invitations"] }),
      queryClient.invalidateQueries({ queryKey: ["admin", "budget"] }),
    ]);
  const attempt = async (work: () => Promise<unknown>) => {
    setError(undefined);
    try {
      await work();
      await refresh();
    } catch (failure) {
      setError(errorText(failure));
    }
  };

  return (
    <>
      <AppHeader title="Admin" wide />
      <main className="mx-auto flex max-w-5xl flex-col gap-4 px-3 py-4 sm:px-4 sm:py-6">
        <nav aria-label="Breadcrumb" className="text-sm">
          <Link href="/admin" className="text-sky-700 hover:underline dark:text-sky-300">
            All sessions
          </Link>
        </nav>
        <h1 className="text-xl font-semibold">People</h1>
        {error !== undefined && (
          <p role="alert" className="text-sm text-red-700 dark:text-red-300">
            {error}
          </p>
        )}
        {forbidden ? (
          <AdminOnly />
        ) : (
          <>
            <Invite onMade={refresh} />
            <section className={sectionClass} aria-labelledby="people-list">
              <h2 id="people-list" className={headingClass}>
                Everyone
              </h2>
              {people.isPending ? (
                <p className="text-sm text-zinc-500">Loading…</p>
              ) : people.isError ? (
                <p role="alert" className="text-sm text-red-700 dark:text-red-300">
                  {errorText(people.error)}
                </p>
              ) : (
                <table className="w-full text-left text-sm">
                  <thead className="text-zinc-500">
                    <tr>
                      <th className="py-1 pr-2 font-normal">Name</th>
                      <th className="py-1 pr-2 font-normal">Email</th>
                      <th className="py-1 pr-2 font-normal">Role</th>
                      <th className="py-1 pr-2 font-normal">Monthly token budget</th>
                      <th className="py-1 font-normal">Access</th>
                    </tr>
                  </thead>
                  <tbody>
                    {people.data.people.map((person) => (
                      <PersonRow
                        key={person.id}
                        person={person}
                        onRole={(role) => attempt(() => api.updatePerson(person.id, { role }))}
                        onDisabled={(disabled) =>
                          attempt(() => api.updatePerson(person.id, { disabled }))
                        }
                        onBudget={(tokens) => attempt(() => api.setPersonBudget(person.id, tokens))}
                      />
                    ))}
                  </tbody>
                </table>
              )}
            </section>
            <section className={sectionClass} aria-labelledby="invitations-list">
              <h2 id="invitations-list" className={headingClass}>
                Invitations
              </h2>
              {invitations.data === undefined || invitations.data.invitations.length === 0 ? (
                <p className="text-sm text-zinc-600 dark:text-zinc-400">No invitations yet.</p>
              ) : (
                <ul className="flex flex-col gap-1 text-sm">
                  {invitations.data.invitations.map((invitation) => (
                    <InvitationRow
                      key={invitation.id}
                      invitation={invitation}
                      onRevoke={() => attempt(() => api.revokeInvitation(invitation.id))}
                    />
                  ))}
                </ul>
              )}
            </section>
          </>
        )}
      </main>
    </>
  );
}

function PersonRow({
  person,
  onRole,
  onDisabled,
  onBudget,
}: {
  person: PersonResponse;
  onRole: (role: AssignableRole) => void;
  onDisabled: (disabled: boolean) => void;
  onBudget: (tokens: number | null) => void;
}) {
  const owner = person.role === "owner";
  const budget = useQuery({
    queryKey: ["admin", "budget", person.id],
    queryFn: () => api.personBudget(person.id),
    retry: false,
  });
  return (
    <tr className="border-t border-zinc-100 align-top dark:border-zinc-800">
      <td className="py-1.5 pr-2">{person.name}</td>
      <td className="py-1.5 pr-2">{person.email}</td>
      <td className="py-1.5 pr-2">
        {owner ? (
          "owner"
        ) : (
          <select
            aria-label={`Role of ${person.name}`}
            className={inputClass}
            value={person.role}
            onChange={(event) => onRole(event.target.value as AssignableRole)}
          >
            <option value="admin">admin</option>
            <option value="member">member</option>
            <option value="viewer">viewer</option>
          </select>
        )}
      </td>
      <td className="py-1.5 pr-2">
        <BudgetCell name={person.name} budget={budget.data} onBudget={onBudget} />
      </td>
      <td className="py-1.5">
        {owner ? (
          "—"
        ) : (
          <button
            type="button"
            className={buttonClass.secondary}
            onClick={() => onDisabled(!person.disabled)}
          >
            {person.disabled ? `Enable ${person.name}` : `Disable ${person.name}`}
          </button>
        )}
      </td>
    </tr>
  );
}

function BudgetCell({
  name,
  budget,
  onBudget,
}: {
  name: string;
  budget: BudgetResponse | undefined;
  onBudget: (tokens: number | null) => void;
}) {
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const value = String(new FormData(event.currentTarget).get("tokens") ?? "").trim();
    onBudget(value === "" ? null : Number(value));
  }
  return (
    <form onSubmit={submit} className="flex items-center gap-1" aria-label={`Budget of ${name}`}>
      <input
        name="tokens"
        type="number"
        min={0}
        step={1}
        placeholder="no limit"
        aria-label={`Monthly tokens of ${name}`}
        defaultValue={budget?.monthly_tokens ?? ""}
        key={budget?.monthly_tokens ?? "none"}
        className={`${inputClass} w-32`}
      />
      <button type="submit" className={buttonClass.ghost}>
        Set
      </button>
      {budget !== undefined && (
        <span className="text-xs text-zinc-500">
          {budget.used_tokens} used in {budget.month}
        </span>
      )}
    </form>
  );
}

function Invite({ onMade }: { onMade: () => Promise<unknown> }) {
  const [made, setMade] = useState<CreatedInvitationResponse | undefined>();
  const [error, setError] = useState<string | undefined>();
  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const formElement = event.currentTarget;
    const form = new FormData(formElement);
    const email = String(form.get("email") ?? "").trim();
    setError(undefined);
    try {
      const invitation = await api.createInvitation({
        email: email === "" ? null : email,
        role: String(form.get("role") ?? "member") as AssignableRole,
        expires_in_hours: Number(form.get("hours") ?? 72),
      });
      setMade(invitation);
      formElement.reset();
      await onMade();
    } catch (failure) {
      setError(errorText(failure));
    }
  }
  return (
    <section className={sectionClass} aria-labelledby="people-invite">
      <h2 id="people-invite" className={headingClass}>
        Invite someone
      </h2>
      <form onSubmit={submit} aria-label="Invite" className="flex flex-wrap items-end gap-3">
        <label className={`${labelClass} min-w-56 flex-1`}>
          Email (optional: only this address can use the link)
          <input name="email" type="email" className={`${inputClass} mt-1`} />
        </label>
        <label className={labelClass}>
          Role
          <select name="role" defaultValue="member" className={`${inputClass} mt-1`}>
            <option value="member">member</option>
            <option value="viewer">viewer</option>
            <option value="admin">admin</option>
          </select>
        </label>
        <label className={labelClass}>
          Valid for (hours)
          <input
            name="hours"
            type="number"
            min={1}
            max={720}
            defaultValue={72}
            className={`${inputClass} mt-1 w-24`}
          />
        </label>
        <button type="submit" className={buttonClass.primary}>
          Make invitation link
        </button>
      </form>
      {error !== undefined && (
        <p role="alert" className="mt-2 text-sm text-red-700 dark:text-red-300">
          {error}
        </p>
      )}
      {made !== undefined && (
        <ShownOnce value={made.url} testId="invitation-url">
          A one-time link for a {made.role}
          {made.email !== null ? ` (${made.email})` : ""}, shown this once. There is no mail server:
          pass it on yourself.
        </ShownOnce>
      )}
    </section>
  );
}

function InvitationRow({
  invitation,
  onRevoke,
}: {
  invitation: InvitationResponse;
  onRevoke: () => void;
}) {
  return (
    <li className="flex flex-wrap items-center gap-2 border-t border-zinc-100 py-1 dark:border-zinc-800">
      <span>
        {invitation.email ?? "anyone with the link"} as {invitation.role}
      </span>
      <span className="text-zinc-500">
        by {invitation.created_by.name}, {invitation.status}
        {invitation.status === "open"
          ? ` until ${new Date(invitation.expires_at).toLocaleString()}`
          : ""}
      </span>
      {invitation.status === "open" && (
        <button type="button" className={buttonClass.ghost} onClick={onRevoke}>
          Revoke
        </button>
      )}
    </li>
  );
}
