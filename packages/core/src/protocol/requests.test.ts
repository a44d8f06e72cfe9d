import { describe, expect, it } from "vitest";
import { MAX_PATH_CHARS } from "../model/limits.js";
import { CreateTokenRequestSchema } from "./people.js";
import {
  ApprovalsRequestSchema,
  CreateBranchRequestSchema,
  CreateSessionRequestSchema,
  EditMessageRequestSchema,
  MAX_TEXT_CHARS,
  MergeRequestSchema,
  PatchConfigRequestSchema,
  ResolveMergeRequestSchema,
  SendMessageRequestSchema,
  toMergeDecision,
} from "./requests.js";
import { type FieldError, parseRequest } from "./validation.js";

function errorsOf(schema: Parameters<typeof parseRequest>[0], body: unknown): FieldError[] {
  const result = parseRequest(schema, body);
  if (result.ok) throw new Error(`expected a failure, got ${JSON.stringify(result.value)}`);
  return result.errors;
}

describe("SendMessageRequest", () => {
  it("Message payload contract: accepts each of the four variants", () => {
    const payloads = [
      { type: "text", text: "hi" },
      {
        type: "file_reference",
        path: "src/a.ts",
        range: { start_line: 2, end_line: 4 },
        display_text: "@a",
      },
      { type: "file_reference", path: "README.md" },
      {
        type: "workflow",
        workflow: "release",
        parameters: { version: "1.2" },
        display_text: "Release",
      },
    ];
    for (const payload of payloads) {
      const result = parseRequest(SendMessageRequestSchema, {
        session_id: "s1",
        payload,
        client_metadata: { tab: 2 },
      });
      expect(result).toEqual({
        ok: true,
        value: { session_id: "s1", payload, client_metadata: { tab: 2 } },
      });
    }
  });

  it("File reference payload: a missing path is rejected naming payload.path", () => {
    expect(
      errorsOf(SendMessageRequestSchema, { session_id: "s1", payload: { type: "file_reference" } }),
    ).toEqual([{ field: "payload.path", message: "Required" }]);
  });

  it("an inverted line range is rejected naming payload.range.end_line", () => {
    const errors = errorsOf(SendMessageRequestSchema, {
      session_id: "s1",
      payload: { type: "file_reference", path: "a", range: { start_line: 5, end_line: 2 } },
    });
    expect(errors).toEqual([
      { field: "payload.range.end_line", message: expect.stringMatching(/end_line/) },
    ]);
  });

  it("Extensible payloads: an unknown variant is rejected with a descriptive error naming payload.type", () => {
    const errors = errorsOf(SendMessageRequestSchema, {
      session_id: "s1",
      payload: { type: "audio", data: "x" },
    });
    expect(errors).toHaveLength(1);
    expect(errors[0]!.field).toBe("payload.type");
    expect(errors[0]!.message).toContain('"audio"');
    expect(errors[0]!.message).toContain(
      "text, file_reference, mcp_resource, mcp_prompt, attachment, workflow",
    );
  });

  it("a text carries its attached files; a zip among them is refused naming its data (issue #27)", () => {
    const png = Buffer.from(
      "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=",
      "base64",
    ).toString("base64");
    const ok = SendMessageRequestSchema.safeParse({
      session_id: "s1",
      payload: {
        type: "text",
        text: "what is this?",
        attachments: [{ name: "pixel.png", mime_type: "image/png", data: png }],
      },
    });
    expect(ok.success).toBe(true);
    const errors = errorsOf(SendMessageRequestSchema, {
      session_id: "s1",
      payload: {
        type: "text",
        text: "and this?",
        attachments: [
          { name: "pixel.png", mime_type: "image/png", data: png },
          {
            name: "notes.zip",
            mime_type: "application/zip",
            data: Buffer.from("PK\u0003\u0004notes").toString("base64"),
          },
        ],
      },
    });
    expect(errors).toEqual([
      { field: "payload.attachments.1.data", message: expect.stringMatching(/zip archive/) },
    ]);
  });

  it("a payload without a type is rejected naming payload.type", () => {
    const errors = errorsOf(SendMessageRequestSchema, { session_id: "s1", payload: { text: "x" } });
    expect(errors).toEqual([
      { field: "payload.type", message: expect.stringMatching(/^Required/) },
    ]);
  });

  it("ill-typed and missing fields are each named", () => {
    const errors = errorsOf(SendMessageRequestSchema, {
      payload: { type: "workflow", workflow: 3, parameters: "x" },
      client_metadata: [],
    });
    expect(errors.map((e) => e.field).sort()).toEqual(
      ["client_metadata", "payload.parameters", "payload.workflow", "session_id"].sort(),
    );
    expect(errors.find((e) => e.field === "session_id")!.message).toBe("Required");
    expect(errors.find((e) => e.field === "payload.workflow")!.message).toMatch(/expected string/);
  });

  it("a tool_result payload is refused like any unknown type (decision 0016: answers arrive as text, approvals through /approvals)", () => {
    const errors = errorsOf(SendMessageRequestSchema, {
      session_id: "s1",
      payload: { type: "tool_result", tool_call_id: "c", content: "done" },
    });
    expect(errors).toHaveLength(1);
    expect(errors[0]!.field).toBe("payload.type");
    expect(errors[0]!.message).toContain('"tool_result"');
  });

  it("a body that is not an object is rejected at the root", () => {
    expect(errorsOf(SendMessageRequestSchema, null)).toEqual([
      { field: "(root)", message: expect.stringMatching(/expected object/) },
    ]);
  });
});

describe("REST request bodies", () => {
  it("CreateSessionRequest validates a partial config and fills its defaults", () => {
    const ok = parseRequest(CreateSessionRequestSchema, {
      title: "t",
      config: { agent_mode: "plan" },
    });
    expect(ok.ok && ok.value.config?.agent_mode).toBe("plan");
    expect(ok.ok && ok.value.config?.approval_policy).toEqual({ type: "manual" });
    expect(parseRequest(CreateSessionRequestSchema, {})).toEqual({ ok: true, value: {} });
    expect(
      errorsOf(CreateSessionRequestSchema, {
        config: { approval_policy: { type: "limited_auto" } },
      }),
    ).toEqual([{ field: "config.approval_policy.max_depth", message: "Required" }]);
  });

  it("PatchConfigRequest needs at least one field", () => {
    expect(parseRequest(PatchConfigRequestSchema, { agent_mode: "plan" })).toEqual({
      ok: true,
      value: { agent_mode: "plan" },
    });
    expect(errorsOf(PatchConfigRequestSchema, {})).toEqual([
      { field: "(root)", message: expect.stringMatching(/at least one/) },
    ]);
    expect(errorsOf(PatchConfigRequestSchema, { agent_mode: "think" })[0]!.field).toBe(
      "agent_mode",
    );
  });

  it("ApprovalsRequest needs one decision at least, and one per call", () => {
    expect(
      parseRequest(ApprovalsRequestSchema, {
        decisions: [
          { tool_call_id: "a", decision: "approve", remember: true },
          { tool_call_id: "b", decision: "deny" },
        ],
      }).ok,
    ).toBe(true);
    expect(errorsOf(ApprovalsRequestSchema, { decisions: [] })[0]!.field).toBe("decisions");
    expect(
      errorsOf(ApprovalsRequestSchema, {
        decisions: [
          { tool_call_id: "a", decision: "approve" },
          { tool_call_id: "a", decision: "deny" },
        ],
      }),
    ).toEqual([{ field: "decisions.1.tool_call_id", message: "duplicate decision for a" }]);
    expect(
      errorsOf(ApprovalsRequestSchema, {
        decisions: [{ tool_call_id: "a", decision: "maybe" }],
      })[0]!.field,
    ).toBe("decisions.0.decision");
  });

  it("CreateBranchRequest needs from_message_id", () => {
    expect(errorsOf(CreateBranchRequestSchema, { name: "x" })).toEqual([
      { field: "from_message_id", message: "Required" },
    ]);
  });

  it("MergeRequest: cherry_pick without message_ids names message_ids; same branches are refused", () => {
    expect(
      parseRequest(MergeRequestSchema, {
        source_branch_id: "a",
        target_branch_id: "b",
        strategy: "rebase",
      }).ok,
    ).toBe(true);
    expect(
      errorsOf(MergeRequestSchema, {
        source_branch_id: "a",
        target_branch_id: "b",
        strategy: "cherry_pick",
      }),
    ).toEqual([{ field: "message_ids", message: "Required when strategy is cherry_pick" }]);
    expect(
      errorsOf(MergeRequestSchema, {
        source_branch_id: "a",
        target_branch_id: "a",
        strategy: "append",
      }),
    ).toEqual([{ field: "target_branch_id", message: "must differ from source_branch_id" }]);
    expect(
      errorsOf(MergeRequestSchema, {
        source_branch_id: "a",
        target_branch_id: "b",
        strategy: "squash",
      })[0]!.field,
    ).toBe("strategy");
  });

  it("ResolveMergeRequest: resolutions, proceed or cancel; errors name the field of the intended shape", () => {
    const resolve = parseRequest(ResolveMergeRequestSchema, {
      resolutions: [
        { conflict_id: "m/c1", resolution: "keep_both" },
        { conflict_id: "m/c2", resolution: "custom", text: "use mine" },
      ],
    });
    expect(resolve.ok && toMergeDecision(resolve.value)).toEqual({
      action: "resolve",
      resolutions: [
        { conflict_id: "m/c1", resolution: "keep_both" },
        { conflict_id: "m/c2", resolution: "custom", text: "use mine" },
      ],
    });
    const proceed = parseRequest(ResolveMergeRequestSchema, {
      proceed: true,
      include_dependencies: true,
    });
    expect(proceed.ok && toMergeDecision(proceed.value)).toEqual({
      action: "proceed",
      include_dependencies: true,
    });
    const cancel = parseRequest(ResolveMergeRequestSchema, { cancel: true });
    expect(cancel.ok && toMergeDecision(cancel.value)).toEqual({ action: "cancel" });

    expect(
      errorsOf(ResolveMergeRequestSchema, {
        resolutions: [{ conflict_id: "c", resolution: "custom" }],
      }),
    ).toEqual([{ field: "resolutions.0.text", message: "Required" }]);
    expect(errorsOf(ResolveMergeRequestSchema, {})).toEqual([
      {
        field: "(root)",
        message: "send exactly one of {resolutions}, {proceed: true} or {cancel: true}",
      },
    ]);
    expect(
      errorsOf(ResolveMergeRequestSchema, { proceed: true, cancel: true }).length,
    ).toBeGreaterThan(0);
  });
});

describe("text and path limits (issue #9)", () => {
  const long = "x".repeat(MAX_TEXT_CHARS + 1);
  const atLimit = "x".repeat(MAX_TEXT_CHARS);

  it("a message's text: at the limit accepted, one over → payload.text", () => {
    const send = (text: string) => ({ session_id: "s", payload: { type: "text", text } });
    expect(parseRequest(SendMessageRequestSchema, send(atLimit)).ok).toBe(true);
    expect(errorsOf(SendMessageRequestSchema, send(long)).map((e) => e.field)).toEqual([
      "payload.text",
    ]);
  });

  it("an edit's text → text", () => {
    expect(parseRequest(EditMessageRequestSchema, { text: atLimit }).ok).toBe(true);
    expect(errorsOf(EditMessageRequestSchema, { text: long }).map((e) => e.field)).toEqual([
      "text",
    ]);
  });

  it("system_prompt on create → config.system_prompt; on PATCH config → system_prompt", () => {
    expect(
      parseRequest(CreateSessionRequestSchema, { config: { system_prompt: atLimit } }).ok,
    ).toBe(true);
    expect(
      errorsOf(CreateSessionRequestSchema, { config: { system_prompt: long } }).map((e) => e.field),
    ).toEqual(["config.system_prompt"]);
    const patched = parseRequest(PatchConfigRequestSchema, { system_prompt: "Be brief." });
    expect(patched.ok && patched.value.system_prompt).toBe("Be brief.");
    expect(errorsOf(PatchConfigRequestSchema, { system_prompt: long }).map((e) => e.field)).toEqual(
      ["system_prompt"],
    );
  });

  it("PATCH config → auto_loop_iteration_timeout_ms, a positive whole number of milliseconds", () => {
    const patched = parseRequest(PatchConfigRequestSchema, {
      auto_loop_iteration_timeout_ms: 90_000,
    });
    expect(patched.ok && patched.value.auto_loop_iteration_timeout_ms).toBe(90_000);
    for (const bad of [0, -5, 1.5, "60000"]) {
      expect(
        errorsOf(PatchConfigRequestSchema, { auto_loop_iteration_timeout_ms: bad }).map(
          (e) => e.field,
        ),
      ).toEqual(["auto_loop_iteration_timeout_ms"]);
    }
  });

  it("a file_reference path over 4096 characters → payload.path, quickly", () => {
    const send = (path: string) => ({
      session_id: "s",
      payload: { type: "file_reference", path },
    });
    expect(parseRequest(SendMessageRequestSchema, send("a/".repeat(2048))).ok).toBe(true);
    const started = performance.now();
    const errors = errorsOf(SendMessageRequestSchema, send("a/".repeat(50_000)));
    expect(performance.now() - started).toBeLessThan(100);
    expect(errors.map((e) => e.field)).toEqual(["payload.path"]);
    expect(MAX_PATH_CHARS).toBe(4096);
  });
});

describe("an unknown key of a strict body", () => {
  it("is named, even when it is the empty string", () => {
    const result = parseRequest(CreateTokenRequestSchema, {
      name: "ci",
      scope: "read",
      "": 1,
      x: 2,
    });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors).toEqual([
      { field: '""', message: "Unrecognized field" },
      { field: "x", message: "Unrecognized field" },
    ]);
  });
});
