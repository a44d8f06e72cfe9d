"use client";

import { type FormEvent, useState } from "react";
import { failureOf, signInFailure } from "@/lib/client/sign-in-errors";
import { buttonClass, inputClass } from "../styles";
import { postAuth, startSso } from "./auth-client";
import { AuthFrame, ErrorNote } from "./sign-in-view";

const labelClass = "mb-3 block text-sm text-zinc-700 dark:text-zinc-300";

/** /invite/<token>: a new account from an invitation (name, email, password), or SSO. */
export function InviteView({ token, sso }: { token: string; sso: string | undefined }) {
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);

  async function accept(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setBusy(true);
    setError(undefined);
    try {
      const response = await postAuth("/sign-up/invitation", {
        token,
        name: String(form.get("name") ?? ""),
        email: String(form.get("email") ?? ""),
        password: String(form.get("password") ?? ""),
      });
      if (response.ok) {
        window.location.assign("/");
        return;
      }
      const failure = await failureOf(response);
      setError(
        failure.status === 401 || failure.status === 400
          ? (failure.message && signInFailure({ ...failure, status: 400 })) ||
              "This invitation is not valid: used, revoked, expired or for another address."
          : signInFailure(failure),
      );
    } catch {
      setError(signInFailure({ status: 0, message: undefined, retryAfter: undefined }));
    } finally {
      setBusy(false);
    }
  }

  async function withSso() {
    setBusy(true);
    setError(undefined);
    const failed = await startSso("/").catch(() => "Signing in with SSO failed. Try again.");
    if (failed !== undefined) {
      setError(failed);
      setBusy(false);
    }
  }

  return (
    <AuthFrame title="Join Arbor">
      <ErrorNote text={error} />
      <form onSubmit={accept} aria-label="Make your account">
        <label className={labelClass}>
          Name
          <input className={`${inputClass} mt-1`} name="name" autoComplete="name" required />
        </label>
        <label className={labelClass}>
          Email
          <input
            className={`${inputClass} mt-1`}
            name="email"
            type="email"
            autoComplete="email"
            required
          />
        </label>
        <label className={labelClass}>
          Password
          <input
            className={`${inputClass} mt-1`}
            name="password"
            type="password"
            autoComplete="new-password"
            minLength={10}
            required
          />
        </label>
        <p className="mb-3 text-xs text-zinc-500 dark:text-zinc-400">At least 10 characters.</p>
        <button type="submit" className={`${buttonClass.primary} w-full`} disabled={busy}>
          Make my account
        </button>
      </form>
      {sso !== undefined && (
        <>
          <p className="my-3 text-center text-xs text-zinc-500 dark:text-zinc-400">
            or continue with SSO (the invitation's email address must be the one {sso} knows)
          </p>
          <button
            type="button"
            className={`${buttonClass.secondary} w-full`}
            onClick={withSso}
            disabled={busy}
          >
            Continue with {sso}
          </button>
        </>
      )}
    </AuthFrame>
  );
}
