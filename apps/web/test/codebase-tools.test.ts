import { appendFileSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import * as fileContent from "@/app/api/sessions/[id]/files/content/route";
import * as sessions from "@/app/api/sessions/route";
import {
  finalState,
  jsonRequest,
  params,
  sendText,
  startTestServer,
  type TestServer,
} from "./support";

// Issue #12 over HTTP: the fake LLM (the real Anthropic wire format) asks for each codebase tool;
// the answers it receives in the next request are checked. The index runs as the server runs it:
// in a worker thread, persisted under the data directory, with the watcher.

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function writeWorkspace(root: string): void {
  const write = (rel: string, text: string): void => {
    mkdirSync(join(root, rel, ".."), { recursive: true });
    writeFileSync(join(root, rel), text);
  };
  write(
    "package.json",
    JSON.stringify({ name: "shop", main: "src/index.ts", dependencies: { zod: "4" } }),
  );
  write(
    "src/cart.ts",
    "export class ShoppingCart {\n  totalPrice(): number {\n    return 0;\n  }\n}\n",
  );
  write(
    "src/index.ts",
    'import { ShoppingCart } from "./cart.js";\n\nexport const cart = new ShoppingCart();\n',
  );
  write("tools/report.py", "def weekly_report(cart):\n    return cart\n");
}

async function session(config: Record<string, unknown>): Promise<string> {
  const created = await sessions.POST(jsonRequest("POST", "/api/sessions", { config }), params({}));
  return ((await created.json()) as { session_id: string }).session_id;
}

/** The names of the tools offered in request `n`. */
function offeredTools(test: TestServer, n: number): string[] {
  const body = test.llm.requests[n]?.body as { tools?: Array<{ name: string }> } | undefined;
  return (body?.tools ?? []).map((tool) => tool.name);
}

/** The tool results the model received in request `n` (Anthropic's tool_result blocks). */
function toolResults(test: TestServer, n: number): string[] {
  const body = test.llm.requests[n]?.body as {
    messages: Array<{ content: string | Array<{ type: string; content?: unknown }> }>;
  };
  const last = body.messages[body.messages.length - 1];
  const blocks = typeof last?.content === "string" ? [] : (last?.content ?? []);
  return blocks
    .filter((block) => block.type === "tool_result")
    .map((block) =>
      typeof block.content === "string"
        ? block.content
        : (block.content as Array<{ text?: string }>).map((part) => part.text ?? "").join(""),
    );
}

describe("codebase tools through a session", () => {
  it("the model calls each of the four tools and receives the right answers", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "arbor-web-data-"));
    server = await startTestServer({ ARBOR_DATA_DIR: dataDir });
    const test = server;
    writeWorkspace(test.workspace);
    test.llm.enqueue(
      {
        blocks: [
          {
            type: "toolCall",
            id: "c1",
            name: "find_definition",
            arguments: { symbol: "ShoppingCart" },
          },
          {
            type: "toolCall",
            id: "c2",
            name: "find_references",
            arguments: { symbol: "ShoppingCart" },
          },
          {
            type: "toolCall",
            id: "c3",
            name: "codebase_search",
            arguments: { query: "weekly report" },
          },
          { type: "toolCall", id: "c4", name: "get_project_overview", arguments: {} },
          {
            type: "toolCall",
            id: "c5",
            name: "find_definition",
            arguments: { symbol: "ShopingCart" },
          },
        ],
      },
      { blocks: [{ type: "text", text: "understood" }] },
    );
    const id = await session({ approval_policy: { type: "auto_approve_all" } });
    const stream = await sendText(id, "explain the code");
    expect(finalState(stream)).toBe("Idle");

    const tools = offeredTools(test, 0);
    expect(tools).toEqual(
      expect.arrayContaining([
        "codebase_search",
        "find_definition",
        "find_references",
        "get_project_overview",
      ]),
    );
    const [definition, references, search, overview, unknown] = toolResults(test, 1);
    expect(definition).toContain("src/cart.ts:1 class ShoppingCart\n    class ShoppingCart");
    expect(references).toContain('3 references to "ShoppingCart" in 2 files');
    expect(references).toContain("src/index.ts (2)");
    expect(search?.split("\n")[1]).toBe("tools/report.py:1 (function weekly_report)");
    // notes.txt is the test server's own
    expect(overview).toContain("Size: 5 files");
    expect(overview).toContain("Entry points: src/index.ts");
    expect(overview).toContain("package.json (npm): zod");
    expect(overview).toMatch(/Languages: TypeScript [\d.]+% \(2 files\)/);
    expect(unknown).toContain("Did you mean: ShoppingCart");
  });

  it("plan mode offers the four codebase tools; a file written by write_file is found at once", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "arbor-web-data-"));
    server = await startTestServer({ ARBOR_DATA_DIR: dataDir });
    const test = server;
    writeWorkspace(test.workspace);
    test.llm.enqueue(
      {
        blocks: [
          {
            type: "toolCall",
            id: "w1",
            name: "write_file",
            arguments: { path: "src/discount.ts", content: "export function applyDiscount() {}\n" },
          },
          {
            type: "toolCall",
            id: "f1",
            name: "find_definition",
            arguments: { symbol: "applyDiscount" },
          },
        ],
      },
      { blocks: [{ type: "text", text: "done" }] },
      { blocks: [{ type: "text", text: "a plan" }] },
    );
    const id = await session({ approval_policy: { type: "auto_approve_all" } });
    expect(finalState(await sendText(id, "add a discount"))).toBe("Idle");
    expect(toolResults(test, 1)[1]).toContain("src/discount.ts:1 function applyDiscount");

    const planned = await session({ agent_mode: "plan" });
    expect(finalState(await sendText(planned, "plan"))).toBe("Idle");
    const offered = offeredTools(test, 2);
    expect(offered).toEqual(
      expect.arrayContaining([
        "codebase_search",
        "find_definition",
        "find_references",
        "get_project_overview",
      ]),
    );
    expect(offered).not.toContain("write_file");
  });
});

describe("the index after outside edits (issue #26)", () => {
  it("a function appended by an editor and a new file written from outside are found by the next call", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "arbor-web-data-"));
    server = await startTestServer({ ARBOR_DATA_DIR: dataDir });
    const test = server;
    writeWorkspace(test.workspace);
    const find = (id: string, symbol: string) => ({
      blocks: [{ type: "toolCall" as const, id, name: "find_definition", arguments: { symbol } }],
    });
    test.llm.enqueue(find("d1", "ShoppingCart"), { blocks: [{ type: "text", text: "indexed" }] });
    const id = await session({ approval_policy: { type: "auto_approve_all" } });
    expect(finalState(await sendText(id, "where is the cart?"))).toBe("Idle");
    expect(toolResults(test, 1)[0]).toContain("src/cart.ts:1 class ShoppingCart");

    // an editor (not Arbor's tools) appends a function and creates a file; the next calls come
    // at once, with no pause for the watcher
    appendFileSync(
      join(test.workspace, "src/cart.ts"),
      "\nexport function checkoutTotal(): number {\n  return 1;\n}\n",
    );
    writeFileSync(join(test.workspace, "src/coupon.ts"), "export class CouponCode {}\n");
    test.llm.enqueue(find("d2", "checkoutTotal"), find("d3", "CouponCode"), {
      blocks: [{ type: "text", text: "found" }],
    });
    expect(finalState(await sendText(id, "find them"))).toBe("Idle");
    expect(toolResults(test, 3)[0]).toContain("src/cart.ts:7 function checkoutTotal");
    expect(toolResults(test, 4)[0]).toContain("src/coupon.ts:1 class CouponCode");
  });
});

describe("GET /api/sessions/{id}/files/content", () => {
  it("answers a workspace file for the file view; 400 naming path outside it, 404 when missing", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "arbor-web-data-"));
    server = await startTestServer({ ARBOR_DATA_DIR: dataDir });
    writeWorkspace(server.workspace);
    const id = await session({});
    const get = (path: string) =>
      fileContent.GET(
        jsonRequest("GET", `/api/sessions/${id}/files/content?${new URLSearchParams({ path })}`),
        params({ id }),
      );
    const ok = await get("src/cart.ts");
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({
      path: "src/cart.ts",
      content: "export class ShoppingCart {\n  totalPrice(): number {\n    return 0;\n  }\n}\n",
      total_lines: 5,
      truncated: false,
    });
    const outside = await get("../../etc/passwd");
    expect(outside.status).toBe(400);
    expect(JSON.stringify(await outside.json())).toContain('"path"');
    expect((await get("src/missing.ts")).status).toBe(404);
    const none = await fileContent.GET(
      jsonRequest("GET", `/api/sessions/${id}/files/content`),
      params({ id }),
    );
    expect(none.status).toBe(400);
    expect(JSON.stringify(await none.json())).toContain('"path"');
  });
});
