// What the sign-in pages say when a request fails. Wrong email and wrong password read the same
// (no account enumeration); a 429 says when to try again (its Retry-After).

export interface Failure {
  status: number;
  /** the body's `message` (better-auth's and Arbor's errors both have one) */
  message: string | undefined;
  /** Retry-After, in seconds */
  retryAfter: number | undefined;
}

export const WRONG_CREDENTIALS = "That email and password do not match an account.";

/** The sentence a sign-in form shows for a failed request. */
export function signInFailure(failure: Failure): string {
  switch (failure.status) {
    case 401:
      return WRONG_CREDENTIALS;
    case 429: {
      const seconds = failure.retryAfter;
      return seconds === undefined
        ? "Too many failed sign-ins. Try again later."
        : `Too many failed sign-ins. Try again in ${waitText(seconds)}.`;
    }
    case 400:
    case 403:
      return failure.message ? capitalise(failure.message) : "The server refused that.";
    default:
      return "Signing in failed: the server could not be reached or had an error. Try again.";
  }
}

/** "45 s", "3 min", "2 h" */
export function waitText(seconds: number): string {
  if (seconds < 90) return `${Math.max(1, Math.round(seconds))} s`;
  if (seconds < 90 * 60) return `${Math.round(seconds / 60)} min`;
  return `${Math.round(seconds / 3600)} h`;
}

/** Reads a failed response into a Failure (never throws). */
export async function failureOf(response: Response): Promise<Failure> {
  let message: string | undefined;
  try {
    const body = (await response.json()) as { message?: unknown };
    if (typeof body.message === "string") message = body.message;
  } catch {
    // not JSON
  }
  const retry = Number(response.headers.get("retry-after"));
  return {
    status: response.status,
    message,
    retryAfter: Number.isFinite(retry) && retry > 0 ? retry : undefined,
  };
}

/** What an SSO error code (better-auth's `?error=` on the way back) means for a person. */
export function ssoFailure(code: string): string {
  // Arbor's own refusal (people.ts, ARBOR_SIGNUP) comes back as a code made of its message
  if (/invitation|sign_?up|create_user/i.test(code)) {
    return "There is no Arbor account for that sign-in yet: ask an admin for an invitation.";
  }
  switch (code) {
    case "signup_disabled":
    case "unable_to_create_user":
      return "There is no Arbor account for that sign-in yet: ask an admin for an invitation.";
    case "account_not_linked":
      return "That email address already has an Arbor account that signs in another way: sign in with it.";
    case "access_denied":
      return "The sign-in was cancelled at the identity provider.";
    default:
      return `Signing in with SSO failed (${code}). Try again, or ask an admin.`;
  }
}

function capitalise(text: string): string {
  const trimmed = text.trim();
  const sentence = trimmed.charAt(0).toUpperCase() + trimmed.slice(1);
  return /[.!?]$/.test(sentence) ? sentence : `${sentence}.`;
}
