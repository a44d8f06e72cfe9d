import { describe, expect, it } from "vitest";
import {
  failureOf,
  signInFailure,
  ssoFailure,
  WRONG_CREDENTIALS,
  waitText,
} from "./sign-in-errors";

describe("signInFailure", () => {
  it("says the same for an unknown email and a wrong password", () => {
    const unknown = signInFailure({
      status: 401,
      message: "User not found",
      retryAfter: undefined,
    });
    const wrong = signInFailure({
      status: 401,
      message: "Invalid email or password",
      retryAfter: undefined,
    });
    expect(unknown).toBe(WRONG_CREDENTIALS);
    expect(wrong).toBe(unknown);
  });

  it("gives a 429's retry time", () => {
    expect(signInFailure({ status: 429, message: "x", retryAfter: 42 })).toBe(
      "Too many failed sign-ins. Try again in 42 s.",
    );
    expect(signInFailure({ status: 429, message: "x", retryAfter: 900 })).toContain("15 min");
    expect(waitText(7200)).toBe("2 h");
  });

  it("shows a refusal's own message and a generic one for a server error", () => {
    expect(
      signInFailure({
        status: 400,
        message: "this invitation is not valid",
        retryAfter: undefined,
      }),
    ).toBe("This invitation is not valid.");
    expect(signInFailure({ status: 500, message: "boom", retryAfter: undefined })).toMatch(
      /could not be reached or had an error/,
    );
  });

  it("reads a response's message and Retry-After", async () => {
    const failure = await failureOf(
      Response.json({ message: "too many" }, { status: 429, headers: { "retry-after": "12" } }),
    );
    expect(failure).toEqual({ status: 429, message: "too many", retryAfter: 12 });
    expect(await failureOf(new Response("<html>", { status: 502 }))).toEqual({
      status: 502,
      message: undefined,
      retryAfter: undefined,
    });
  });

  it("explains SSO error codes", () => {
    expect(ssoFailure("signup_disabled")).toMatch(/invitation/);
    expect(ssoFailure("ACCOUNTS_ARE_MADE_BY_INVITATION_HERE")).toMatch(/invitation/);
    expect(ssoFailure("weird")).toContain("weird");
  });
});
