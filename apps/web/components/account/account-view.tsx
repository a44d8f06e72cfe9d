"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { type FormEvent, useCallback, useEffect, useState } from "react";
import { failureOf } from "@/lib/client/sign-in-errors";
import { AppHeader } from "../app-header";
import { buttonClass, inputClass } from "../styles";
import { authClient, postAuth } from "./auth-client";

export interface AccountViewProps {
  person: { name: string; email: string | null; role: string };
  hasPassword: boolean;
  /** the SSO providers the person has signed in with */
  sso: string[];
  /** this person's browser sessions, newest first */
  sessions: Array<{
    id: string;
    createdAt: string;
    userAgent: string | null;
    ipAddress: string | null;
    current: boolean;
  }>;
}

interface PasskeyRow {
  id: string;
  name?: string | null;
  createdAt: string | Date;
}

const sectionClass =
  "rounded-lg border border-zinc-200 bg-white p-4 dark:border-zinc-800 dark:bg-zinc-900";
const headingClass = "mb-3 text-base font-semibold text-zinc-900 dark:text-zinc-50";
const labelClass = "mb-3 block text-sm text-zinc-700 dark:text-zinc-300";
const noteClass = "text-sm text-zinc-600 dark:text-zinc-400";

function Status({ text, error }: { text: string | undefined; error?: boolean }) {
  if (text === undefined) return null;
  return (
    <p
      role={error ? "alert" : "status"}
      className={`mt-2 text-sm ${error ? "text-red-700 dark:text-red-300" : "text-emerald-700 dark:text-emerald-300"}`}
    >
      {text}
    </p>
  );
}

/** Settings › Account: who is signed in, their password, passkeys and browser sessions. */
export function AccountView(props: AccountViewProps) {
  return (
    <div className="min-h-dvh bg-zinc-50 dark:bg-zinc-950">
      <AppHeader title="Account" />
      <main className="mx-auto flex max-w-3xl flex-col gap-4 px-3 py-6 sm:px-4">
        <Who {...props} />
        <Password hasPassword={props.hasPassword} />
        <Passkeys />
        <Sessions sessions={props.sessions} />
      </main>
    </div>
  );
}

function Who({ person, sso }: AccountViewProps) {
  const [busy, setBusy] = useState(false);
  async function signOut() {
    setBusy(true);
    await postAuth("/sign-out").catch(() => undefined);
    window.location.assign("/login");
  }
  return (
    <section className={sectionClass} aria-labelledby="account-who">
      <h1 id="account-who" className={headingClass}>
        Signed in as {person.name}
      </h1>
      <dl className="mb-3 grid grid-cols-[auto_1fr] gap-x-4 gap-y-1 text-sm">
        <dt className="text-zinc-500">Name</dt>
        <dd data-testid="account-name">{person.name}</dd>
        <dt className="text-zinc-500">Email</dt>
        <dd data-testid="account-email">{person.email ?? "none"}</dd>
        <dt className="text-zinc-500">Role</dt>
        <dd data-testid="account-role">{person.role}</dd>
        {sso.length > 0 && (
          <>
            <dt className="text-zinc-500">SSO</dt>
            <dd>{sso.join(", ")}</dd>
          </>
        )}
      </dl>
      <div className="flex flex-wrap items-center gap-3">
        <button type="button" className={buttonClass.secondary} onClick={signOut} disabled={busy}>
          Sign out
        </button>
        <Link
          href="/settings/tokens"
          className="text-sm text-sky-700 hover:underline dark:text-sky-300"
        >
          Personal API tokens
        </Link>
        {(person.role === "owner" || person.role === "admin") && (
          <Link
            href="/settings/providers"
            className="text-sm text-sky-700 hover:underline dark:text-sky-300"
          >
            Model providers
          </Link>
        )}
      </div>
    </section>
  );
}

function Password({ hasPassword }: { hasPassword: boolean }) {
  const [has, setHas] = useState(hasPassword);
  const [status, setStatus] = useState<{ text: string; error: boolean } | undefined>();

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const formElement = event.currentTarget;
    const form = new FormData(formElement);
    setStatus(undefined);
    const body: Record<string, string> = { password: String(form.get("password") ?? "") };
    if (has) body.current_password = String(form.get("current_password") ?? "");
    const response = await fetch("/api/me/password", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    }).catch(() => undefined);
    if (response === undefined) {
      setStatus({ text: "The server could not be reached.", error: true });
    } else if (response.ok) {
      setStatus({
        text: has ? "Your password was changed." : "Your password was set.",
        error: false,
      });
      setHas(true);
      formElement.reset();
    } else {
      const failure = await failureOf(response);
      setStatus({ text: failure.message ?? `Refused (HTTP ${failure.status}).`, error: true });
    }
  }

  return (
    <section className={sectionClass} aria-labelledby="account-password">
      <h2 id="account-password" className={headingClass}>
        Password
      </h2>
      <p className={`${noteClass} mb-3`}>
        {has
          ? "Change your password: your current one is needed."
          : "You have no password yet. Set one to sign in with your email address."}
      </p>
      <form onSubmit={submit} aria-label={has ? "Change password" : "Set a password"}>
        {has && (
          <label className={labelClass}>
            Current password
            <input
              className={`${inputClass} mt-1`}
              name="current_password"
              type="password"
              autoComplete="current-password"
              required
            />
          </label>
        )}
        <label className={labelClass}>
          New password
          <input
            className={`${inputClass} mt-1`}
            name="password"
            type="password"
            autoComplete="new-password"
            minLength={10}
            required
          />
        </label>
        <button type="submit" className={buttonClass.primary}>
          {has ? "Change password" : "Set password"}
        </button>
      </form>
      <Status text={status?.text} error={status?.error} />
    </section>
  );
}

function Passkeys() {
  const [passkeys, setPasskeys] = useState<PasskeyRow[] | undefined>();
  const [status, setStatus] = useState<{ text: string; error: boolean } | undefined>();
  const [busy, setBusy] = useState(false);

  const load = useCallback(async () => {
    const result = await authClient().passkey.listUserPasskeys();
    if (result.error) setStatus({ text: "Your passkeys could not be listed.", error: true });
    else setPasskeys((result.data ?? []) as PasskeyRow[]);
  }, []);

  useEffect(() => {
    void load();
  }, [load]);

  async function add(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const formElement = event.currentTarget;
    const name = String(new FormData(formElement).get("name") ?? "").trim();
    setBusy(true);
    setStatus(undefined);
    try {
      const result = await authClient().passkey.addPasskey(name === "" ? {} : { name });
      if (result?.error) {
        setStatus({
          text: `The passkey was not added${result.error.message ? `: ${result.error.message}` : ""}.`,
          error: true,
        });
      } else {
        setStatus({ text: "Passkey added.", error: false });
        formElement.reset();
      }
      await load();
    } finally {
      setBusy(false);
    }
  }

  async function remove(id: string) {
    setBusy(true);
    setStatus(undefined);
    const result = await authClient().passkey.deletePasskey({ id });
    if (result.error) setStatus({ text: "The passkey was not removed.", error: true });
    await load();
    setBusy(false);
  }

  return (
    <section className={sectionClass} aria-labelledby="account-passkeys">
      <h2 id="account-passkeys" className={headingClass}>
        Passkeys
      </h2>
      <p className={`${noteClass} mb-3`}>
        A passkey signs you in with this device's screen lock or a security key, without a password.
        It works only at this site's address.
      </p>
      {passkeys === undefined ? (
        <p className={noteClass}>Loading…</p>
      ) : passkeys.length === 0 ? (
        <p className={noteClass}>No passkeys yet.</p>
      ) : (
        <ul
          aria-label="Your passkeys"
          className="mb-3 divide-y divide-zinc-200 dark:divide-zinc-800"
        >
          {passkeys.map((p) => (
            <li key={p.id} className="flex items-center justify-between py-2 text-sm">
              <span>
                {p.name || "Passkey"}{" "}
                <span className="text-zinc-500">
                  added {new Date(p.createdAt).toLocaleString()}
                </span>
              </span>
              <button
                type="button"
                className={buttonClass.ghost}
                onClick={() => remove(p.id)}
                disabled={busy}
                aria-label={`Remove passkey ${p.name || p.id}`}
              >
                Remove
              </button>
            </li>
          ))}
        </ul>
      )}
      <form onSubmit={add} aria-label="Add a passkey" className="mt-3 flex gap-2">
        <input
          className={inputClass}
          name="name"
          placeholder="A name for it (e.g. Laptop)"
          aria-label="Passkey name"
          maxLength={100}
        />
        <button type="submit" className={`${buttonClass.primary} shrink-0`} disabled={busy}>
          Add a passkey
        </button>
      </form>
      <Status text={status?.text} error={status?.error} />
    </section>
  );
}

function Sessions({ sessions }: { sessions: AccountViewProps["sessions"] }) {
  const router = useRouter();
  const [status, setStatus] = useState<{ text: string; error: boolean } | undefined>();
  const others = sessions.filter((s) => !s.current).length;

  async function endOthers() {
    setStatus(undefined);
    const response = await postAuth("/revoke-other-sessions").catch(() => undefined);
    if (response?.ok) {
      setStatus({ text: "Every other session was signed out.", error: false });
      router.refresh();
    } else setStatus({ text: "The other sessions were not signed out.", error: true });
  }

  return (
    <section className={sectionClass} aria-labelledby="account-sessions">
      <h2 id="account-sessions" className={headingClass}>
        Browser sessions
      </h2>
      <ul
        aria-label="Your browser sessions"
        className="mb-3 divide-y divide-zinc-200 dark:divide-zinc-800"
      >
        {sessions.map((s) => (
          <li key={s.id} className="py-2 text-sm">
            <span className="font-medium">{describeAgent(s.userAgent)}</span>
            {s.current && (
              <span className="ml-2 rounded bg-emerald-100 px-1.5 text-xs text-emerald-800 dark:bg-emerald-900 dark:text-emerald-200">
                this browser
              </span>
            )}
            <span className="block text-zinc-500">
              signed in {new Date(s.createdAt).toLocaleString()}
              {s.ipAddress ? ` from ${s.ipAddress}` : ""}
            </span>
          </li>
        ))}
      </ul>
      <button
        type="button"
        className={buttonClass.secondary}
        onClick={endOthers}
        disabled={others === 0}
      >
        Sign out everywhere else
      </button>
      <Status text={status?.text} error={status?.error} />
    </section>
  );
}

/** "Chrome on Linux"-ish from a user agent: enough to tell sessions apart. */
function describeAgent(agent: string | null): string {
  if (agent === null || agent === "") return "Unknown browser";
  const browser = /Edg\//.test(agent)
    ? "Edge"
    : /Firefox\//.test(agent)
      ? "Firefox"
      : /Chrom(e|ium)\//.test(agent)
        ? "Chrome"
        : /Safari\//.test(agent)
          ? "Safari"
          : agent.split(/[\s/]/)[0] || "Browser";
  const os = /Windows/.test(agent)
    ? "Windows"
    : /Mac OS X/.test(agent)
      ? "macOS"
      : /Android/.test(agent)
        ? "Android"
        : /iPhone|iPad/.test(agent)
          ? "iOS"
          : /Linux/.test(agent)
            ? "Linux"
            : undefined;
  return os === undefined ? browser : `${browser} on ${os}`;
}
