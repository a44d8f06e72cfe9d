import { describe, expect, it } from "vitest";
import { z } from "zod";
import { SessionConfigSchema } from "../model/session-config.js";
import { SetPasswordRequestSchema } from "./account.js";
import { PutBudgetRequestSchema } from "./budgets.js";
import { McpPromptRequestSchema } from "./mcp.js";
import { ParallelMessageRequestSchema } from "./parallel.js";
import {
  CreateInvitationRequestSchema,
  CreateTokenRequestSchema,
  UpdatePersonRequestSchema,
} from "./people.js";
import {
  ApprovalsRequestSchema,
  ApprovePlanRequestSchema,
  CreateBranchRequestSchema,
  CreateSessionRequestSchema,
  EditMessageRequestSchema,
  ImportSessionRequestSchema,
  MergeRequestSchema,
  PatchConfigRequestSchema,
  PatchSessionRequestSchema,
  ResolveMergeRequestSchema,
  SendMessageRequestSchema,
  UpdateBranchRequestSchema,
} from "./requests.js";
import { CreateLinkRequestSchema, ShareRequestSchema } from "./sharing.js";
import { strictRequest } from "./strict.js";
import { RevokeTrustRequestSchema, TrustDefinitionRequestSchema } from "./trust.js";
import { parseRequest } from "./validation.js";

// Issue #26, finding 2: every request body is strict at every depth. The structural check reads
// each body's JSON Schema: every object that lists properties must forbid others.

const BODIES = {
  SendMessageRequestSchema,
  ParallelMessageRequestSchema,
  CreateSessionRequestSchema,
  ImportSessionRequestSchema,
  PatchSessionRequestSchema,
  PatchConfigRequestSchema,
  ApprovalsRequestSchema,
  ApprovePlanRequestSchema,
  EditMessageRequestSchema,
  CreateBranchRequestSchema,
  UpdateBranchRequestSchema,
  MergeRequestSchema,
  ResolveMergeRequestSchema,
  SetPasswordRequestSchema,
  PutBudgetRequestSchema,
  McpPromptRequestSchema,
  CreateTokenRequestSchema,
  UpdatePersonRequestSchema,
  CreateInvitationRequestSchema,
  ShareRequestSchema,
  CreateLinkRequestSchema,
  TrustDefinitionRequestSchema,
  RevokeTrustRequestSchema,
};

/** Paths of the objects in a JSON Schema that list properties but do not forbid others. */
function lenientObjects(schema: unknown, path: string, out: string[]): string[] {
  if (Array.isArray(schema)) {
    schema.forEach((item, i) => {
      lenientObjects(item, `${path}[${i}]`, out);
    });
    return out;
  }
  if (typeof schema !== "object" || schema === null) return out;
  const node = schema as Record<string, unknown>;
  if (node.properties !== undefined && node.additionalProperties !== false) out.push(path || "/");
  for (const [key, value] of Object.entries(node)) lenientObjects(value, `${path}/${key}`, out);
  return out;
}

describe("strict request bodies", () => {
  it.each(Object.entries(BODIES))("%s forbids unknown fields at every depth", (_name, schema) => {
    const json = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" });
    expect(lenientObjects(json, "", [])).toEqual([]);
  });

  it("names an unknown field by its path, at the top and nested in a union's variant", () => {
    const result = parseRequest(SendMessageRequestSchema, {
      session_id: "s",
      payload: {
        type: "file_reference",
        path: "a.ts",
        range: { start_line: 1, end_line: 2, x: 1 },
      },
      extra: true,
    });
    expect(result).toEqual({
      ok: false,
      errors: [
        { field: "payload.range.x", message: "Unrecognized field" },
        { field: "extra", message: "Unrecognized field" },
      ],
    });
  });

  it("keeps what the schema says: descriptions, defaults, refinements, records", () => {
    const strict = strictRequest(
      z
        .object({
          n: z.number().default(3).describe("a number"),
          tags: z.record(z.string(), z.object({ on: z.boolean() })),
        })
        .refine((v) => v.n < 10, { message: "n below 10", path: ["n"] })
        .describe("the body"),
    );
    expect(strict.description).toBe("the body");
    expect(parseRequest(strict, { tags: { any: { on: true } } })).toEqual({
      ok: true,
      value: { n: 3, tags: { any: { on: true } } },
    });
    expect(parseRequest(strict, { n: 11, tags: {} })).toEqual({
      ok: false,
      errors: [{ field: "n", message: "n below 10" }],
    });
    // a record's keys are the client's own; its values' objects are strict
    expect(parseRequest(strict, { tags: { a: { on: true, off: false } } })).toEqual({
      ok: false,
      errors: [{ field: "tags.a.off", message: "Unrecognized field" }],
    });
  });

  it("leaves the model schemas it was given tolerant: stored data written by another version still loads", () => {
    const stored = { ...SessionConfigSchema.parse({}), written_by_a_newer_instance: 1 };
    expect(SessionConfigSchema.safeParse(stored).success).toBe(true);
    expect(parseRequest(CreateSessionRequestSchema, { config: stored })).toEqual({
      ok: false,
      errors: [{ field: "config.written_by_a_newer_instance", message: "Unrecognized field" }],
    });
  });

  it("PATCH /config takes folding, and names a misspelt folding setting", () => {
    expect(parseRequest(PatchConfigRequestSchema, { folding: { enabled: true } })).toMatchObject({
      ok: true,
      value: { folding: { enabled: true, default_budget: 8192 } },
    });
    expect(parseRequest(PatchConfigRequestSchema, { folding: { enabeld: true } })).toEqual({
      ok: false,
      errors: [{ field: "folding.enabeld", message: "Unrecognized field" }],
    });
    expect(parseRequest(PatchConfigRequestSchema, {})).toMatchObject({
      ok: false,
      errors: [{ field: "(root)", message: expect.stringContaining("folding") }],
    });
  });

  it("a create's config.workspace is refused (the server chooses it), an import file's exported fields are not", () => {
    expect(parseRequest(CreateSessionRequestSchema, { config: { workspace: "/" } })).toEqual({
      ok: false,
      errors: [{ field: "config.workspace", message: "Unrecognized field" }],
    });
    const exported = {
      format: "arbor-session",
      version: 1,
      session: {
        id: "s1",
        title: "Kept",
        state: { type: "Idle" },
        config: { ...SessionConfigSchema.parse({}), workspace: "/elsewhere", system_prompt: "p" },
        active_branch_id: "b1",
        branches: [],
        pending_merges: [],
        last_sequence: 3,
        resume_from_sequence: 3,
      },
      messages: [],
    };
    expect(parseRequest(ImportSessionRequestSchema, exported).ok).toBe(true);
    expect(
      parseRequest(ImportSessionRequestSchema, {
        ...exported,
        session: { ...exported.session, colour: "red" },
      }),
    ).toEqual({ ok: false, errors: [{ field: "session.colour", message: "Unrecognized field" }] });
  });

  it("a merge's message_ids with a strategy other than cherry_pick is refused, not ignored", () => {
    expect(
      parseRequest(MergeRequestSchema, {
        source_branch_id: "a",
        target_branch_id: "b",
        strategy: "append",
        message_ids: ["m1"],
      }),
    ).toMatchObject({ ok: false, errors: [{ field: "message_ids" }] });
  });
});

describe("an unknown field in a body that is a union of shapes", () => {
  it("is named when the rest of the body fits one shape", () => {
    expect(parseRequest(ResolveMergeRequestSchema, { cancel: true, also: 1 })).toEqual({
      ok: false,
      errors: [{ field: "also", message: "Unrecognized field" }],
    });
    expect(
      parseRequest(ResolveMergeRequestSchema, {
        resolutions: [{ conflict_id: "c1", resolution: "keep_both", note: "x" }],
      }),
    ).toEqual({
      ok: false,
      errors: [{ field: "resolutions.0.note", message: "Unrecognized field" }],
    });
  });
});

describe("an unknown field that no shape of a union knows", () => {
  it("is named beside the union's own message", () => {
    expect(parseRequest(ResolveMergeRequestSchema, { unknown_setting: true })).toEqual({
      ok: false,
      errors: [
        {
          field: "(root)",
          message: "send exactly one of {resolutions}, {proceed: true} or {cancel: true}",
        },
        { field: "unknown_setting", message: "Unrecognized field" },
      ],
    });
  });
});
