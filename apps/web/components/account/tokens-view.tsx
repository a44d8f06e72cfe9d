"use client";

import type { ApiTokenResponse, CreatedTokenResponse } from "@arbor/core/browser";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { api, errorText } from "@/lib/client/api";
import { AppHeader } from "../app-header";
import { ShownOnce } from "../shown-once";
import { buttonClass, inputClass } from "../styles";

// Settings › Tokens: the person's personal API tokens (docs/accounts.md). A new token's secret
// is shown once, here, with Copy; the list shows name, scope, first characters and last use.

const sectionClass =
  "rounded-lg border border-zinc-200 bg-white p-4 dark:border-zinc-800 dark:bg-zinc-900";
const headingClass = "mb-3 text-base font-semibold text-zinc-900 dark:text-zinc-50";
const labelClass = "block text-sm text-zinc-700 dark:text-zinc-300";

function when(value: string | null): string {
  return value === null ? "never" : new Date(value).toLocaleString();
}

function statusOf(token: ApiTokenResponse): string {
  if (token.revoked_at !== null) return "revoked";
  if (token.expires_at !== null && token.expires_at <= new Date().toISOString()) return "expired";
  return "active";
}

export function TokensView() {
  const queryClient = useQueryClient();
  const tokens = useQuery({ queryKey: ["me", "tokens"], queryFn: () => api.listTokens() });
  const [created, setCreated] = useState<CreatedTokenResponse | undefined>();
  const [error, setError] = useState<string | undefined>();

  async function create(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const expires = String(form.get("expires") ?? "");
    setError(undefined);
    try {
      const made = await api.createToken({
        name: String(form.get("name") ?? ""),
        scope: String(form.get("scope") ?? "read") as ApiTokenResponse["scope"],
        expires_at: expires === "" ? null : new Date(`${expires}T23:59:59Z`).toISOString(),
      });
      setCreated(made);
      event.currentTarget?.reset();
      await queryClient.invalidateQueries({ queryKey: ["me", "tokens"] });
    } catch (failure) {
      setError(errorText(failure));
    }
  }

  async function revoke(token: ApiTokenResponse) {
    setError(undefined);
    try {
      await api.revokeToken(token.id);
      if (created?.id === token.id) setCreated(undefined);
      await queryClient.invalidateQueries({ queryKey: ["me", "tokens"] });
    } catch (failure) {
      setError(errorText(failure));
    }
  }

  return (
    <div className="min-h-dvh bg-zinc-50 dark:bg-zinc-950">
      <AppHeader title="Tokens" />
      <main className="mx-auto flex max-w-3xl flex-col gap-4 px-3 py-6 sm:px-4">
        <section className={sectionClass} aria-labelledby="tokens-new">
          <h1 id="tokens-new" className={headingClass}>
            Personal API tokens
          </h1>
          <p className="mb-3 text-sm text-zinc-600 dark:text-zinc-400">
            Send one as <code>Authorization: Bearer &lt;token&gt;</code>. Its scope caps what it may
            do: read, write (send, approve, create, share) or admin.
          </p>
          <form onSubmit={create} aria-label="New token" className="flex flex-wrap items-end gap-3">
            <label className={`${labelClass} min-w-48 flex-1`}>
              Name
              <input name="name" required maxLength={100} className={`${inputClass} mt-1`} />
            </label>
            <label className={labelClass}>
              Scope
              <select name="scope" defaultValue="read" className={`${inputClass} mt-1`}>
                <option value="read">read</option>
                <option value="write">write</option>
                <option value="admin">admin</option>
              </select>
            </label>
            <label className={labelClass}>
              Expires (optional)
              <input name="expires" type="date" className={`${inputClass} mt-1`} />
            </label>
            <button type="submit" className={buttonClass.primary}>
              Create token
            </button>
          </form>
          {error !== undefined && (
            <p role="alert" className="mt-2 text-sm text-red-700 dark:text-red-300">
              {error}
            </p>
          )}
          {created !== undefined && (
            <ShownOnce value={created.token} testId="new-token">
              Your new token <strong>{created.name}</strong>. It is shown this once: copy it now.
            </ShownOnce>
          )}
        </section>
        <section className={sectionClass} aria-labelledby="tokens-list">
          <h2 id="tokens-list" className={headingClass}>
            Your tokens
          </h2>
          {tokens.isPending ? (
            <p className="text-sm text-zinc-500">Loading…</p>
          ) : tokens.isError ? (
            <p role="alert" className="text-sm text-red-700 dark:text-red-300">
              {errorText(tokens.error)}
            </p>
          ) : tokens.data.tokens.length === 0 ? (
            <p className="text-sm text-zinc-600 dark:text-zinc-400">No tokens yet.</p>
          ) : (
            <table className="w-full text-left text-sm">
              <thead className="text-zinc-500">
                <tr>
                  <th className="py-1 pr-2 font-normal">Name</th>
                  <th className="py-1 pr-2 font-normal">Scope</th>
                  <th className="py-1 pr-2 font-normal">Starts with</th>
                  <th className="py-1 pr-2 font-normal">Last used</th>
                  <th className="py-1 pr-2 font-normal">Expires</th>
                  <th className="py-1 pr-2 font-normal">Status</th>
                  <th className="py-1 font-normal">
                    <span className="sr-only">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {tokens.data.tokens.map((token) => {
                  const status = statusOf(token);
                  return (
                    <tr key={token.id} className="border-t border-zinc-100 dark:border-zinc-800">
                      <td className="py-1.5 pr-2">
                        {token.name}
                        {token.install && (
                          <span className="ml-1 text-xs text-zinc-500">(install token)</span>
                        )}
                      </td>
                      <td className="py-1.5 pr-2">{token.scope}</td>
                      <td className="py-1.5 pr-2 font-mono text-xs">{token.prefix}…</td>
                      <td className="py-1.5 pr-2">{when(token.last_used_at)}</td>
                      <td className="py-1.5 pr-2">{when(token.expires_at)}</td>
                      <td className="py-1.5 pr-2">{status}</td>
                      <td className="py-1.5 text-right">
                        {status === "active" && (
                          <button
                            type="button"
                            className={buttonClass.ghost}
                            aria-label={`Revoke ${token.name}`}
                            onClick={() => void revoke(token)}
                          >
                            Revoke
                          </button>
                        )}
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          )}
        </section>
      </main>
    </div>
  );
}
