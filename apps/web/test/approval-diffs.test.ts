import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MessagesResponseSchema } from "@arbor/core";
import { afterAll, beforeAll, expect, it } from "vitest";
import * as approvals from "@/app/api/sessions/[id]/approvals/route";
import * as messages from "@/app/api/sessions/[id]/messages/route";
import {
  createSessionId,
  finalState,
  jsonRequest,
  params,
  readSse,
  startTestServer,
  type TestServer,
} from "./support";

// Issue #27, case 1, over the route handlers: an edit_file call held for approval is stored with
// the diff of its change against the file on disk (read before anything runs), an edit of a file
// outside the workspace with a problem and nothing read, and the result of the approved call
// carries the diff it applied.

let server: TestServer;
let workspace: string;

beforeAll(async () => {
  const base = mkdtempSync(join(tmpdir(), "arbor-web-diffs-"));
  workspace = join(base, "ws");
  mkdirSync(join(workspace, "src"), { recursive: true });
  writeFileSync(join(workspace, "src", "a.ts"), "const a = 1;\nconst b = 2;\n");
  writeFileSync(join(base, "outside.txt"), "outside secret\n");
  server = await startTestServer({ WORKSPACE_DIR: workspace });
}, 60_000);

afterAll(async () => {
  await server?.close();
});

async function rows(id: string) {
  const stored = await messages.GET(
    jsonRequest("GET", `/api/sessions/${id}/messages`),
    params({ id }),
  );
  return MessagesResponseSchema.parse(await stored.json()).messages;
}

it("stores the proposed diff with the held call and the applied diff with its result", async () => {
  server.llm.enqueue(
    {
      blocks: [
        {
          type: "toolCall",
          id: "call_edit",
          name: "edit_file",
          arguments: { path: "src/a.ts", old_text: "const b = 2;", new_text: "const b = 3;" },
        },
        {
          type: "toolCall",
          id: "call_out",
          name: "edit_file",
          arguments: { path: "../outside.txt", old_text: "outside", new_text: "x" },
        },
      ],
    },
    { blocks: [{ type: "text", text: "Done." }] },
  );
  const id = await createSessionId({ config: { approval_policy: { type: "manual" } } });
  const first = await readSse(
    await messages.POST(
      jsonRequest("POST", `/api/sessions/${id}/messages`, {
        session_id: id,
        payload: { type: "text", text: "bump b" },
      }),
      params({ id }),
    ),
  );
  expect(finalState(first)).toBe("AwaitingToolApproval");
  const request = (await rows(id)).find((m) => m.body.message_type === "tool_request")?.body;
  const calls = request?.message_type === "tool_request" ? request.calls : [];
  expect(calls[0]?.preview).toEqual({
    kind: "file_change",
    path: "src/a.ts",
    diff: {
      path: "src/a.ts",
      change: "edit",
      added: 1,
      removed: 1,
      hunks: [
        {
          old_start: 1,
          old_lines: 2,
          new_start: 1,
          new_lines: 2,
          lines: [" const a = 1;", "-const b = 2;", "+const b = 3;"],
        },
      ],
    },
  });
  const outside = calls[1]?.preview;
  expect(outside?.kind === "file_change" && outside.problem).toContain(
    "outside the workspace root",
  );
  expect(JSON.stringify(calls)).not.toContain("outside secret");
  // nothing ran before the approval
  expect(readFileSync(join(workspace, "src", "a.ts"), "utf8")).toBe("const a = 1;\nconst b = 2;\n");

  await readSse(
    await approvals.POST(
      jsonRequest("POST", `/api/sessions/${id}/approvals`, {
        decisions: [
          { tool_call_id: "call_edit", decision: "approve" },
          { tool_call_id: "call_out", decision: "deny" },
        ],
      }),
      params({ id }),
    ),
  );
  expect(readFileSync(join(workspace, "src", "a.ts"), "utf8")).toBe("const a = 1;\nconst b = 3;\n");
  const result = (await rows(id)).find(
    (m) => m.body.message_type === "tool_result" && m.body.tool_call_id === "call_edit",
  )?.body;
  expect(result?.message_type === "tool_result" && result.details).toMatchObject({
    diff: { path: "src/a.ts", added: 1, removed: 1 },
  });
}, 60_000);
