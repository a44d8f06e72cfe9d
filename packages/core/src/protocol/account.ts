import { z } from "zod";
import { strictRequest } from "./strict.js";

// Settings › Account: what a signed-in person changes of their own account (docs/accounts.md).

export const SetPasswordRequestSchema = strictRequest(
  z
    .object({
      password: z
        .string()
        .min(10, "at least 10 characters")
        .max(256, "at most 256 characters")
        .describe("the new password (10 to 256 characters)"),
      current_password: z
        .string()
        .min(1)
        .max(256)
        .optional()
        .describe(
          "the password the person has now: required when they have one (a first password is set without it)",
        ),
    })
    .strict()
    .describe("Body of POST /api/me/password."),
);
export type SetPasswordRequest = z.infer<typeof SetPasswordRequestSchema>;
