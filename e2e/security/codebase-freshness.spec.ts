import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "@playwright/test";
import { type FakeRequest, Servers } from "./harness.js";

// Issue #26 finding 1, against the production build: the codebase index follows edits made
// outside Arbor (an editor appending a function, a file written by another program) and no
// codebase tool answers from an index older than its call. The app runs as `npm start` lays it
// out (the data directory inside the workspace) and watches the workspace's MCP config files
// from its start, as it always does, before any codebase tool has run.

let servers: Servers;
let workspace: string;

test.beforeAll(async () => {
  workspace = mkdtempSync(join(tmpdir(), "arbor-e2e-codebase-"));
  mkdirSync(join(workspace, "src"));
  writeFileSync(
    join(workspace, "src", "cart.ts"),
    "export class ShoppingCart {\n  totalPrice(): number {\n    return 0;\n  }\n}\n",
  );
  servers = await Servers.start({
    dirs: { workspace, dataDir: join(workspace, "apps", "web", ".data") },
  });
});
test.afterAll(async () => {
  await servers?.close();
});

const find = (id: string, symbol: string) => ({
  blocks: [{ type: "toolCall" as const, id, name: "find_definition", arguments: { symbol } }],
});

/** The text of the tool_result for `id` in the model requests the fake received. */
function resultOf(requests: FakeRequest[], id: string): string | undefined {
  for (const request of requests) {
    const messages = (request.body as { messages?: Array<{ content: unknown }> }).messages ?? [];
    for (const message of messages) {
      if (!Array.isArray(message.content)) continue;
      for (const block of message.content as Array<Record<string, unknown>>) {
        if (block.type !== "tool_result" || block.tool_use_id !== id) continue;
        const content = block.content;
        return typeof content === "string"
          ? content
          : (content as Array<{ text?: string }>).map((part) => part.text ?? "").join("");
      }
    }
  }
  return undefined;
}

test("a function an editor appends and a file written from outside are found by the next find_definition, at once", async () => {
  const api = servers.api;
  const id = await api.createSession({ approval_policy: { type: "auto_approve_all" } }, "index");
  // the first codebase call builds the index and starts the watcher
  await servers.script([
    find("toolu_first", "ShoppingCart"),
    { blocks: [{ type: "text", text: "ok" }] },
  ]);
  await api.send(id, { type: "text", text: "where is the cart?" });
  expect((await api.waitForState(id, (s) => s.type === "Idle")).type).toBe("Idle");
  expect(resultOf(await servers.fakeRequests(), "toolu_first")).toContain(
    "src/cart.ts:1 class ShoppingCart",
  );

  // outside Arbor: an editor appends a function, another program writes a new file; the next
  // message follows at once (no pause for the watcher)
  appendFileSync(
    join(workspace, "src", "cart.ts"),
    "\nexport function checkoutTotal(): number {\n  return 1;\n}\n",
  );
  writeFileSync(join(workspace, "src", "coupon.ts"), "export class CouponCode {}\n");
  await servers.script([
    find("toolu_appended", "checkoutTotal"),
    find("toolu_created", "CouponCode"),
    { blocks: [{ type: "text", text: "found both" }] },
  ]);
  const began = Date.now();
  await api.send(id, { type: "text", text: "find them" });
  expect((await api.waitForState(id, (s) => s.type === "Idle")).type).toBe("Idle");
  const requests = await servers.fakeRequests();
  expect(resultOf(requests, "toolu_appended")).toContain("src/cart.ts:7 function checkoutTotal");
  expect(resultOf(requests, "toolu_created")).toContain("src/coupon.ts:1 class CouponCode");
  // the watcher reported the edits: no call waited out the 5 s fallback (a full rescan)
  expect(Date.now() - began).toBeLessThan(5_000);
  expect(servers.app.output()).not.toContain("the file watcher");

  // and a file deleted from outside is forgotten by the next call
  await servers.script([
    find("toolu_deleted", "CouponCode"),
    { blocks: [{ type: "text", text: "gone" }] },
  ]);
  rmSync(join(workspace, "src", "coupon.ts"));
  await api.send(id, { type: "text", text: "and now?" });
  expect((await api.waitForState(id, (s) => s.type === "Idle")).type).toBe("Idle");
  expect(resultOf(await servers.fakeRequests(), "toolu_deleted")).toContain(
    'No definition of "CouponCode"',
  );
});
