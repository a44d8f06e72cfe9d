"use client";

import type { KeyProvider, ProviderKeyView } from "@arbor/core/browser";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { type FormEvent, useState } from "react";
import { ApiError, api, errorText } from "@/lib/client/api";
import { AdminOnly } from "../admin/admin-only";
import { AppHeader } from "../app-header";
import { buttonClass, inputClass } from "../styles";

// Settings › Model providers (issue #27, docs/decisions/0054): an admin keeps a provider's key
// here instead of setting a variable and restarting. The key is typed once, sent once and never
// shown again: the list shows where the key in force comes from, its last four characters, who
// kept it and when.

const sectionClass =
  "rounded-lg border border-zinc-200 bg-white p-4 dark:border-zinc-800 dark:bg-zinc-900";

const SOURCE_TEXT: Record<ProviderKeyView["source"], string> = {
  settings: "In use: the key kept here",
  environment: "In use: the environment variable",
  none: "No key",
};

export function ProviderKeysView() {
  const queryClient = useQueryClient();
  const keys = useQuery({
    queryKey: ["settings", "provider-keys"],
    queryFn: () => api.providerKeys(),
    retry: false,
  });
  const forbidden = keys.error instanceof ApiError && keys.error.code === "forbidden";
  const refresh = () => queryClient.invalidateQueries({ queryKey: ["settings", "provider-keys"] });

  return (
    <>
      <AppHeader title="Settings" wide />
      <main className="mx-auto flex max-w-5xl flex-col gap-4 px-3 py-4 sm:px-4 sm:py-6">
        <nav aria-label="Breadcrumb" className="flex gap-3 text-sm">
          <Link href="/settings/account" className="text-sky-700 hover:underline dark:text-sky-300">
            Account
          </Link>
          <Link href="/admin" className="text-sky-700 hover:underline dark:text-sky-300">
            Admin
          </Link>
        </nav>
        <h1 className="text-xl font-semibold">Model providers</h1>
        <p className="max-w-3xl text-sm text-zinc-600 dark:text-zinc-300">
          Add a provider&apos;s API key to use its models: the next message uses it, with no
          restart. A key is stored encrypted and never shown again, only its last four characters.
          Tools never see it. A key kept here wins over the same environment variable; remove it to
          go back to the variable.
        </p>
        {forbidden ? (
          <AdminOnly />
        ) : keys.isError ? (
          <p role="alert" className="text-sm text-red-700 dark:text-red-400">
            Could not load the provider keys: {errorText(keys.error)}
          </p>
        ) : keys.isPending ? (
          <p className="text-sm text-zinc-500">Loading…</p>
        ) : (
          <>
            <p data-testid="model-in-force" className="text-sm text-zinc-700 dark:text-zinc-300">
              New sessions use{" "}
              <span className="font-medium text-zinc-900 dark:text-zinc-100">
                {keys.data.model.name}
              </span>{" "}
              <span className="text-zinc-500">({keys.data.model.protocol})</span>.
            </p>
            <ul className="flex flex-col gap-3">
              {keys.data.providers.map((provider) => (
                <ProviderRow key={provider.provider} provider={provider} onChanged={refresh} />
              ))}
            </ul>
          </>
        )}
      </main>
    </>
  );
}

function ProviderRow({
  provider,
  onChanged,
}: {
  provider: ProviderKeyView;
  onChanged: () => Promise<unknown>;
}) {
  const [key, setKey] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>();
  const inputId = `key-${provider.provider}`;
  const headingId = `provider-${provider.provider}`;

  async function act(work: () => Promise<unknown>) {
    setBusy(true);
    setError(undefined);
    try {
      await work();
      setKey("");
      await onChanged();
    } catch (failure) {
      setError(errorText(failure));
    } finally {
      setBusy(false);
    }
  }
  const keep = (event: FormEvent) => {
    event.preventDefault();
    void act(() => api.keepProviderKey(provider.provider as KeyProvider, key.trim()));
  };

  return (
    <li className={sectionClass} aria-labelledby={headingId}>
      <div className="flex flex-wrap items-baseline justify-between gap-2">
        <h2 id={headingId} className="text-base font-semibold text-zinc-900 dark:text-zinc-50">
          {provider.label}
        </h2>
        <span
          data-testid={`key-source-${provider.provider}`}
          className={`text-sm ${provider.source === "none" ? "text-zinc-500" : "text-emerald-700 dark:text-emerald-300"}`}
        >
          {SOURCE_TEXT[provider.source]}
        </span>
      </div>
      <dl className="mt-2 grid grid-cols-[auto_1fr] gap-x-4 gap-y-1 text-sm">
        <dt className="text-zinc-500">Variable</dt>
        <dd className="font-mono text-xs">
          {provider.variable}
          {provider.environment ? " (set in the environment)" : ""}
        </dd>
        {provider.hint !== null && (
          <>
            <dt className="text-zinc-500">Kept key</dt>
            <dd data-testid={`key-hint-${provider.provider}`}>
              <span className="font-mono">{provider.hint}</span>
              {provider.set_by && provider.set_at && (
                <span className="text-zinc-500">
                  {" "}
                  · set by {provider.set_by.name} on {new Date(provider.set_at).toLocaleString()}
                </span>
              )}
            </dd>
          </>
        )}
        {provider.needs.length > 0 && (
          <>
            <dt className="text-zinc-500">Also needs</dt>
            <dd className="font-mono text-xs">{provider.needs.join(", ")}</dd>
          </>
        )}
      </dl>
      {provider.problem !== undefined && (
        <p role="alert" className="mt-2 text-sm text-red-700 dark:text-red-300">
          The kept key cannot be read on this server: {provider.problem}
        </p>
      )}
      <form className="mt-3 flex flex-wrap items-end gap-2" onSubmit={keep}>
        <div className="min-w-64 flex-1">
          <label htmlFor={inputId} className="block text-sm text-zinc-700 dark:text-zinc-300">
            {provider.hint === null ? "API key" : "Replace the key"} for {provider.label}
          </label>
          <input
            id={inputId}
            type="password"
            autoComplete="off"
            spellCheck={false}
            className={inputClass}
            value={key}
            onChange={(event) => setKey(event.target.value)}
          />
        </div>
        <button type="submit" className={buttonClass.primary} disabled={busy || key.trim() === ""}>
          Save key
        </button>
        {(provider.hint !== null || provider.problem !== undefined) && (
          <button
            type="button"
            className={buttonClass.secondary}
            disabled={busy}
            aria-label={`Remove the ${provider.label} key`}
            onClick={() => void act(() => api.removeProviderKey(provider.provider as KeyProvider))}
          >
            Remove
          </button>
        )}
      </form>
      {error !== undefined && (
        <p role="alert" className="mt-2 text-sm text-red-700 dark:text-red-300">
          {error}
        </p>
      )}
    </li>
  );
}
