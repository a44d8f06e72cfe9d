import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "@playwright/test";
import {
  errorEvents,
  nonce,
  Servers,
  type StoredMessage,
  statesOf,
  summary,
  toolCalls,
  toolPairs,
  toolResults,
} from "./harness.js";

// Issue #24, finding 6, over HTTP against the production build: an imported file with a message
// id twice answered 500 and an imported call could stay pending; an SVG was taken as a PNG; the
// data directory (arbor.db, the token file) was readable by every local user, and with `npm
// start` it lies inside the workspace, where read_file returned the token file.
//
// The app runs as `npm start` lays it out: the data directory is `apps/web/.data` inside the
// workspace. It was left by an "older version": the folder 0755 and a token file 0644, holding a
// value of its own (ARBOR_TOKEN is set, so the file is not the credential, but its value must
// reach no model all the same).

const FILE_TOKEN = `file-token-${nonce()}${nonce()}`;

let servers: Servers;
let root = "";
let dataDir = "";

test.beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "arbor-sec-datadir-"));
  const workspace = join(root, "checkout");
  dataDir = join(workspace, "apps", "web", ".data");
  mkdirSync(dataDir, { recursive: true });
  chmodSync(dataDir, 0o755);
  writeFileSync(join(dataDir, "token"), `${FILE_TOKEN}\n`);
  chmodSync(join(dataDir, "token"), 0o644);
  writeFileSync(join(workspace, "README.md"), "the checkout's readme\n");
  servers = await Servers.start({ dirs: { workspace, dataDir } });
});

test.afterAll(async () => {
  await servers?.close();
  if (root) rmSync(root, { recursive: true, force: true });
});

const modeOf = (path: string) => (statSync(path).mode & 0o777).toString(8);

/** The file the chat's Export › JSON writes for a session. */
interface ExportFile {
  format: "arbor-session";
  version: 1;
  session: object;
  messages: StoredMessage[];
}

async function exportFile(id: string): Promise<ExportFile> {
  const detail = await servers.api.get(`/api/sessions/${id}`);
  const list = await servers.api.get(`/api/sessions/${id}/messages`);
  return {
    format: "arbor-session",
    version: 1,
    session: detail.json as object,
    messages: (list.json as { messages: StoredMessage[] }).messages,
  };
}

test("the data directory is 0700, arbor.db, its -wal and -shm and the token file 0600", async () => {
  await servers.api.createSession({});
  expect(modeOf(dataDir)).toBe("700");
  for (const file of ["arbor.db", "arbor.db-wal", "arbor.db-shm", "token"]) {
    expect(modeOf(join(dataDir, file)), file).toBe("600");
  }
});

test("an import holding a message id twice answers 400 naming the field, and creates nothing", async () => {
  const api = servers.api;
  await servers.resetFake();
  await servers.script([{ blocks: [{ type: "text", text: "Hello there." }] }]);
  const id = await api.createSession({});
  await api.send(id, { type: "text", text: "hi" });
  const file = await exportFile(id);
  const [first, second] = file.messages;
  const before = ((await api.get("/api/sessions")).json as unknown[]).length;

  const answer = await api.post("/api/sessions/import", {
    ...file,
    messages: [first, second, first],
  });
  expect(answer.status, answer.text).toBe(400);
  expect(answer.json).toMatchObject({
    error: "invalid_request",
    fields: [
      {
        field: "messages.2.id",
        message: `duplicate message id "${first?.id}" (also messages.0.id)`,
      },
    ],
  });
  expect(((await api.get("/api/sessions")).json as unknown[]).length).toBe(before);
});

test("a session imported while its call waited for approval is at rest: the call is cancelled, and the next request answers every tool_use", async () => {
  const api = servers.api;
  await servers.resetFake();
  const callId = `toolu_wait_${nonce()}`;
  await servers.script([
    {
      blocks: [
        { type: "toolCall", id: callId, name: "read_file", arguments: { path: "README.md" } },
      ],
    },
  ]);
  const id = await api.createSession({
    approval_policy: { type: "manual" },
    approve_read_only: false,
  });
  const waiting = await api.send(id, { type: "text", text: "read the readme" });
  expect(statesOf(waiting).at(-1), summary(waiting)).toBe("AwaitingToolApproval");

  const imported = await api.post("/api/sessions/import", await exportFile(id));
  expect(imported.status, imported.text).toBe(201);
  const copy = (imported.json as { session_id: string }).session_id;
  expect((await api.state(copy)).type).toBe("Idle");
  const messages = await api.messages(copy);
  expect(toolCalls(messages)).toMatchObject([{ id: callId, approval: "denied" }]);
  expect(toolResults(messages)).toMatchObject([{ tool_call_id: callId, status: "cancelled" }]);

  await servers.resetFake();
  await servers.script([{ blocks: [{ type: "text", text: "Understood." }] }]);
  const next = await api.send(copy, { type: "text", text: "go on" });
  expect(errorEvents(next), summary(next)).toEqual([]);
  const requests = (await servers.fakeRequests()).filter(
    (r) => r.protocol === "anthropic-messages",
  );
  expect(requests.length).toBe(1);
  const { uses, results } = toolPairs(requests[0]?.body);
  expect(uses).toEqual([callId]);
  expect(results).toEqual([callId]);
});

test("an SVG sent as a PNG answers 400 naming payload.data, and nothing is stored", async () => {
  const api = servers.api;
  const id = await api.createSession({});
  const svg = '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>';
  const answer = await api.post(`/api/sessions/${id}/messages`, {
    session_id: id,
    payload: {
      type: "attachment",
      name: "logo.png",
      mime_type: "image/png",
      data: Buffer.from(svg).toString("base64"),
    },
  });
  expect(answer.status, answer.text).toBe(400);
  expect(answer.json).toMatchObject({
    fields: [
      {
        field: "payload.data",
        message: "the bytes are not image/png (they have no png, jpeg, gif or webp signature)",
      },
    ],
  });
  expect(await api.messages(id)).toEqual([]);
});

test("inside the workspace, the model's read_file, list_files and search of the data directory are refused or leave it out; the token file's value reaches no model", async () => {
  const api = servers.api;
  await servers.resetFake();
  await servers.script([
    {
      blocks: [
        {
          type: "toolCall",
          id: "toolu_dd_read",
          name: "read_file",
          arguments: { path: "apps/web/.data/token" },
        },
        {
          type: "toolCall",
          id: "toolu_dd_dots",
          name: "read_file",
          arguments: { path: "apps/web/../web/.data/token" },
        },
        {
          type: "toolCall",
          id: "toolu_dd_list",
          name: "list_files",
          arguments: { path: "apps/web" },
        },
        {
          type: "toolCall",
          id: "toolu_dd_listdata",
          name: "list_files",
          arguments: { path: "apps/web/.data" },
        },
        {
          type: "toolCall",
          id: "toolu_dd_search",
          name: "search",
          arguments: { pattern: "file-token" },
        },
      ],
    },
    { blocks: [{ type: "text", text: "Nothing there." }] },
  ]);
  const id = await api.createSession({ approval_policy: { type: "auto_approve_all" } });
  const events = await api.send(id, { type: "text", text: "find the token" });
  expect(errorEvents(events), summary(events)).toEqual([]);

  const results = new Map(toolResults(await api.messages(id)).map((r) => [r.tool_call_id, r]));
  const refusal = `is Arbor's data directory (${dataDir})`;
  expect(results.get("toolu_dd_read")?.text).toContain(
    `refused: 'apps/web/.data/token' ${refusal}`,
  );
  expect(results.get("toolu_dd_dots")?.text).toContain(refusal);
  expect(results.get("toolu_dd_listdata")?.text).toContain(refusal);
  expect(results.get("toolu_dd_list")?.text).not.toContain(".data");
  expect(results.get("toolu_dd_search")?.text).toContain("No matches for /file-token/");

  const requests = (await servers.fakeRequests()).filter(
    (r) => r.protocol === "anthropic-messages",
  );
  expect(requests.length).toBe(2);
  for (const request of requests) {
    const body = JSON.stringify(request.body);
    expect(body).not.toContain(FILE_TOKEN);
    expect(body).not.toContain(servers.token);
  }
  expect(JSON.stringify(requests[1]?.body)).toContain("toolu_dd_read");

  // the chat's file view refuses it too
  const view = await api.get(
    `/api/sessions/${id}/files/content?path=${encodeURIComponent("apps/web/.data/token")}`,
  );
  expect(view.status, view.text).toBe(400);
  expect(view.json).toMatchObject({ fields: [{ field: "path" }] });
  expect(view.text).toContain("Arbor's data directory");
  expect(view.text).not.toContain(FILE_TOKEN);
});
