import { chmodSync, mkdirSync, mkdtempSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import * as fileContent from "@/app/api/sessions/[id]/files/content/route";
import * as files from "@/app/api/sessions/[id]/files/route";
import {
  createSessionId,
  finalState,
  jsonRequest,
  params,
  sendText,
  startTestServer,
  type TestServer,
} from "./support";

// Issue #24: Arbor's data directory (the database, the install token) is its owner's only, and
// when it lies inside the workspace (npm start: apps/web/.data in the checkout) the model's file
// tools, the file view and the file picker refuse or leave it out.

const SECRET = "datadir-token-5d1c9e8f7a6b5c4d3e2f1a0b9c8d7e6f";

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const modeOf = (path: string) => (statSync(path).mode & 0o777).toString(8);

describe("the data directory", () => {
  it("is made 0700 at start, and what an older version left 0644 becomes 0600", async () => {
    const dataDir = join(mkdtempSync(join(tmpdir(), "arbor-web-modes-")), ".data");
    mkdirSync(join(dataDir, "tool-processes"), { recursive: true });
    chmodSync(dataDir, 0o755);
    writeFileSync(join(dataDir, "token"), `${SECRET}\n`);
    chmodSync(join(dataDir, "token"), 0o644);
    server = await startTestServer({ ARBOR_DATA_DIR: dataDir });
    expect(modeOf(dataDir)).toBe("700");
    expect(modeOf(join(dataDir, "tool-processes"))).toBe("700");
    expect(modeOf(join(dataDir, "token"))).toBe("600");
  });

  it("inside the workspace: read_file, list_files and search refuse or skip it; the token reaches no model request", async () => {
    const workspace = mkdtempSync(join(tmpdir(), "arbor-web-ws-"));
    const dataDir = join(workspace, "apps", "web", ".data");
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(join(dataDir, "token"), `${SECRET}\n`);
    // a source file in the data directory: the codebase index must not read it either
    writeFileSync(join(dataDir, "leak.ts"), `export class DataDirLeak { token = "${SECRET}"; }\n`);
    writeFileSync(join(workspace, "notes.txt"), "alpha\n");
    writeFileSync(join(workspace, "cart.ts"), "export class ShoppingCart {}\n");
    server = await startTestServer({ WORKSPACE_DIR: workspace, ARBOR_DATA_DIR: dataDir });
    const test = server;
    test.llm.enqueue(
      {
        blocks: [
          {
            type: "toolCall",
            id: "c1",
            name: "read_file",
            arguments: { path: "apps/web/.data/token" },
          },
          { type: "toolCall", id: "c2", name: "list_files", arguments: {} },
          { type: "toolCall", id: "c3", name: "search", arguments: { pattern: "datadir-token" } },
          { type: "toolCall", id: "c4", name: "list_files", arguments: { path: "apps/web/.data" } },
          {
            type: "toolCall",
            id: "c5",
            name: "find_definition",
            arguments: { symbol: "DataDirLeak" },
          },
          { type: "toolCall", id: "c6", name: "get_project_overview", arguments: {} },
        ],
      },
      { blocks: [{ type: "text", text: "done" }] },
    );
    const id = await createSessionId({ config: { approval_policy: { type: "auto_approve_all" } } });
    expect(finalState(await sendText(id, "look around"))).toBe("Idle");

    const sent = JSON.stringify(test.llm.requests.map((r) => r.body));
    expect(sent).not.toContain(SECRET);
    expect(sent).toContain(
      `refused: 'apps/web/.data/token' is Arbor's data directory (${dataDir})`,
    );
    expect(sent).toContain("notes.txt");
    expect(sent).toContain("No matches for /datadir-token/");
    expect(sent).toContain("refused: 'apps/web/.data' is Arbor's data directory");
    // the index saw cart.ts and nothing of the data directory
    expect(sent).not.toContain("leak.ts");
    expect(sent).toContain("Size: 2 files");

    // the chat's file view and the @ file picker
    const view = await fileContent.GET(
      jsonRequest(
        "GET",
        `/api/sessions/${id}/files/content?path=${encodeURIComponent("apps/web/.data/token")}`,
      ),
      params({ id }),
    );
    expect(view.status).toBe(400);
    const refused = JSON.stringify(await view.json());
    expect(refused).toContain("Arbor's data directory");
    expect(refused).not.toContain(SECRET);
    const picker = await files.GET(
      jsonRequest("GET", `/api/sessions/${id}/files?query=token`),
      params({ id }),
    );
    expect(JSON.stringify(await picker.json())).not.toContain(".data");
  });
});
