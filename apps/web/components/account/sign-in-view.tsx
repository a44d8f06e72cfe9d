"use client";

import { type FormEvent, type ReactNode, useState } from "react";
import { safeNextPath } from "@/lib/client/next-path";
import { failureOf, signInFailure, ssoFailure } from "@/lib/client/sign-in-errors";
import { ArborLogo } from "../icons";
import { buttonClass, inputClass } from "../styles";
import { authClient, postAuth, startSso } from "./auth-client";

export interface SignInViewProps {
  /** where to go afterwards, as the query gave it (checked here: only a path of this site) */
  next: string | undefined;
  /** the SSO button's label (ARBOR_OIDC_NAME) when SSO is configured */
  sso: string | undefined;
  /** better-auth's `?error=` after a failed SSO sign-in */
  ssoError: string | undefined;
  /** a password reset link's token (`?token=`, where the reset link leads) */
  resetToken: string | undefined;
}

/** The frame of the sign-in and invitation pages. */
export function AuthFrame({ title, children }: { title: string; children: ReactNode }) {
  return (
    <main className="grid min-h-dvh place-items-center bg-zinc-50 px-4 dark:bg-zinc-950">
      <div className="w-full max-w-sm rounded-lg border border-zinc-200 bg-white p-6 shadow-sm dark:border-zinc-800 dark:bg-zinc-900">
        <p className="mb-4 flex items-center gap-1.5 font-semibold text-zinc-900 dark:text-zinc-50">
          <ArborLogo />
          Arbor
        </p>
        <h1 className="mb-4 text-lg font-semibold text-zinc-900 dark:text-zinc-50">{title}</h1>
        {children}
      </div>
    </main>
  );
}

export function ErrorNote({ text }: { text: string | undefined }) {
  if (text === undefined) return null;
  return (
    <p
      role="alert"
      className="mb-3 rounded-md border border-red-300 bg-red-50 px-3 py-2 text-sm text-red-800 dark:border-red-800 dark:bg-red-950 dark:text-red-200"
    >
      {text}
    </p>
  );
}

const labelClass = "mb-3 block text-sm text-zinc-700 dark:text-zinc-300";

/** /login: email + password, a passkey, SSO, and a password reset without mail. */
export function SignInView({ next, sso, ssoError, resetToken }: SignInViewProps) {
  if (resetToken !== undefined) return <ResetPassword token={resetToken} />;
  return <SignIn next={next} sso={sso} ssoError={ssoError} />;
}

function SignIn({ next, sso, ssoError }: Omit<SignInViewProps, "resetToken">) {
  const target = safeNextPath(next);
  const [error, setError] = useState<string | undefined>(
    ssoError === undefined ? undefined : ssoFailure(ssoError),
  );
  const [busy, setBusy] = useState(false);
  const [forgot, setForgot] = useState(false);

  async function withPassword(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setBusy(true);
    setError(undefined);
    try {
      const response = await postAuth("/sign-in/email", {
        email: String(form.get("email") ?? ""),
        password: String(form.get("password") ?? ""),
      });
      if (response.ok) {
        window.location.assign(target);
        return;
      }
      setError(signInFailure(await failureOf(response)));
    } catch {
      setError(signInFailure({ status: 0, message: undefined, retryAfter: undefined }));
    } finally {
      setBusy(false);
    }
  }

  async function withPasskey() {
    setBusy(true);
    setError(undefined);
    try {
      const result = await authClient().signIn.passkey();
      if (result.error) {
        setError(
          result.error.status === 429
            ? signInFailure({ status: 429, message: undefined, retryAfter: undefined })
            : "No passkey signed you in. Try again, or sign in another way.",
        );
        return;
      }
      window.location.assign(target);
    } catch {
      setError("No passkey signed you in. Try again, or sign in another way.");
    } finally {
      setBusy(false);
    }
  }

  async function withSso() {
    setBusy(true);
    setError(undefined);
    const failed = await startSso(target).catch(() => "Signing in with SSO failed. Try again.");
    if (failed !== undefined) {
      setError(failed);
      setBusy(false);
    }
  }

  if (forgot) return <ForgotPassword onBack={() => setForgot(false)} />;
  return (
    <AuthFrame title="Sign in">
      <ErrorNote text={error} />
      <form onSubmit={withPassword} aria-label="Sign in with email and password">
        <label className={labelClass}>
          Email
          <input
            className={`${inputClass} mt-1`}
            name="email"
            type="email"
            autoComplete="username webauthn"
            required
          />
        </label>
        <label className={labelClass}>
          Password
          <input
            className={`${inputClass} mt-1`}
            name="password"
            type="password"
            autoComplete="current-password"
            required
          />
        </label>
        <button type="submit" className={`${buttonClass.primary} w-full`} disabled={busy}>
          Sign in
        </button>
      </form>
      <div className="mt-3 flex flex-col gap-2">
        <button
          type="button"
          className={`${buttonClass.secondary} w-full`}
          onClick={withPasskey}
          disabled={busy}
        >
          Sign in with a passkey
        </button>
        {sso !== undefined && (
          <button
            type="button"
            className={`${buttonClass.secondary} w-full`}
            onClick={withSso}
            disabled={busy}
          >
            Sign in with {sso}
          </button>
        )}
      </div>
      <button
        type="button"
        className="mt-4 text-sm text-sky-700 underline-offset-2 hover:underline dark:text-sky-400"
        onClick={() => setForgot(true)}
      >
        Forgot password?
      </button>
    </AuthFrame>
  );
}

function ForgotPassword({ onBack }: { onBack: () => void }) {
  const [sent, setSent] = useState(false);
  const [error, setError] = useState<string | undefined>();

  async function request(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setError(undefined);
    const response = await postAuth("/request-password-reset", {
      email: String(form.get("email") ?? ""),
      redirectTo: "/login",
    }).catch(() => undefined);
    // the answer is the same whether or not the address has an account
    if (response?.ok) setSent(true);
    else
      setError(
        response === undefined
          ? "The server could not be reached."
          : signInFailure(await failureOf(response)),
      );
  }

  return (
    <AuthFrame title="Reset your password">
      <ErrorNote text={error} />
      {sent ? (
        <p role="status" className="mb-3 text-sm text-zinc-700 dark:text-zinc-300">
          If that address has an account, a reset link was made. Arbor sends no mail: the link is in
          the server's log, so ask the owner of this Arbor to pass it on to you.
        </p>
      ) : (
        <form onSubmit={request} aria-label="Request a password reset">
          <p className="mb-3 text-sm text-zinc-600 dark:text-zinc-400">
            Arbor sends no mail: the reset link goes to the server's log, and the owner of this
            Arbor passes it on to you.
          </p>
          <label className={labelClass}>
            Email
            <input className={`${inputClass} mt-1`} name="email" type="email" required />
          </label>
          <button type="submit" className={`${buttonClass.primary} w-full`}>
            Make a reset link
          </button>
        </form>
      )}
      <button
        type="button"
        className="mt-4 text-sm text-sky-700 underline-offset-2 hover:underline dark:text-sky-400"
        onClick={onBack}
      >
        Back to sign in
      </button>
    </AuthFrame>
  );
}

function ResetPassword({ token }: { token: string }) {
  const [error, setError] = useState<string | undefined>();
  const [done, setDone] = useState(false);

  async function reset(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setError(undefined);
    const response = await postAuth("/reset-password", {
      token,
      newPassword: String(form.get("password") ?? ""),
    }).catch(() => undefined);
    if (response?.ok) setDone(true);
    else
      setError(
        response === undefined
          ? "The server could not be reached."
          : "That reset link is not valid (used or expired), or the password is too short (10 characters at least).",
      );
  }

  return (
    <AuthFrame title="Choose a new password">
      <ErrorNote text={error} />
      {done ? (
        <p role="status" className="text-sm text-zinc-700 dark:text-zinc-300">
          Your password was changed and your other sessions were signed out.{" "}
          <a className="text-sky-700 underline dark:text-sky-400" href="/login">
            Sign in
          </a>
        </p>
      ) : (
        <form onSubmit={reset} aria-label="Choose a new password">
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
          <button type="submit" className={`${buttonClass.primary} w-full`}>
            Set the password
          </button>
        </form>
      )}
    </AuthFrame>
  );
}
