import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FixtureWorkspace, polyglotWorkspace } from "../../test/support/codebase-workspace.js";
import { createDefaultTools } from "../tools/builtin/default-tools.js";
import type { AnyAgentTool, ToolContext, ToolResult } from "../tools/tool.js";
import { CodebaseIndex } from "./codebase-index.js";
import { createCodebaseTools, withCodebaseTools } from "./codebase-tools.js";
import type { FindDefinitionDetails } from "./definition-tool.js";
import { PARSE_MAX_BYTES } from "./file-analysis.js";
import type { ProjectOverview } from "./overview.js";
import type { FindReferencesDetails } from "./references-tool.js";
import type { CodebaseSearchDetails } from "./search-tool.js";
import { inlineRunner } from "./worker-client.js";

// The four tools on a fixture workspace in eleven languages (indexed in-process, no watcher: the
// worker and the watcher have their own tests in codebase-index.test.ts).

let ws: FixtureWorkspace;
let index: CodebaseIndex;
let tools: Map<string, AnyAgentTool>;

const ctx = (name: string): ToolContext => ({
  toolCallId: "call-1",
  toolName: name,
  signal: new AbortController().signal,
  onUpdate: () => undefined,
  onProgress: () => undefined,
});

async function call<T>(name: string, params: unknown): Promise<{ text: string; details: T }> {
  const tool = tools.get(name);
  if (tool === undefined) throw new Error(`no tool ${name}`);
  const result = (await tool.execute(tool.parameters.parse(params), ctx(name))) as ToolResult<T>;
  const first = result.content[0];
  return { text: first?.type === "text" ? first.text : "", details: result.details as T };
}

beforeAll(async () => {
  ws = polyglotWorkspace();
  index = new CodebaseIndex({ workspaceRoot: ws.root, watch: false, runner: inlineRunner() });
  tools = new Map(createCodebaseTools({ index }).map((tool) => [tool.name, tool]));
  await index.ready();
  // eleven grammars load in-process: seconds on a loaded two-core machine
}, 120_000);

afterAll(async () => {
  await index.close();
  ws.dispose();
});

describe("codebase tools", () => {
  it("are the four read-only tools with the issue's names", () => {
    expect([...tools.keys()]).toEqual([
      "codebase_search",
      "find_definition",
      "find_references",
      "get_project_overview",
    ]);
    for (const tool of tools.values()) expect(tool.category).toBe("read");
  });

  it("withCodebaseTools adds them after the built-in tools; write_file reports to the index", async () => {
    const all = withCodebaseTools(createDefaultTools({ workspaceRoot: ws.root }), {
      index,
      secrets: ["s3cr3t-value"],
    });
    expect(all.map((t) => t.name).slice(-5)).toEqual([
      "search",
      "codebase_search",
      "find_definition",
      "find_references",
      "get_project_overview",
    ]);
    const byName = new Map(all.map((t) => [t.name, t]));
    await byName
      .get("write_file")
      ?.execute(
        { path: "src/secret.ts", content: 'export const apiKey = "s3cr3t-value";\n' },
        ctx("write_file"),
      );
    const found = await byName
      .get("codebase_search")
      ?.execute({ query: "api key" }, ctx("codebase_search"));
    const text = found?.content[0]?.type === "text" ? found.content[0].text : "";
    expect(text).toContain("src/secret.ts:1");
    // snippets are file content: redacted like read_file's
    expect(text).not.toContain("s3cr3t-value");
    ws.remove("src/secret.ts");
    index.changed(["src/secret.ts"]);
  });

  it.each([
    ["UserRepository", "src/users.ts", 14, "class", undefined, "class UserRepository"],
    [
      "findUserById",
      "src/users.ts",
      17,
      "method",
      "UserRepository",
      "findUserById(id: UserId): User | undefined",
    ],
    ["UserId", "src/users.ts", 6, "type", undefined, 'type UserId = User["id"];'],
    ["Role", "src/users.ts", 8, "enum", undefined, "enum Role"],
    ["DEFAULT_PORT", "src/index.ts", 4, "constant", undefined, "const DEFAULT_PORT = 8080"],
    ["ShoppingCart", "py/shop/cart.py", 4, "class", undefined, "class ShoppingCart:"],
    [
      "add_item",
      "py/shop/cart.py",
      10,
      "method",
      "ShoppingCart",
      "def add_item(self, name, price):",
    ],
    ["TAX_RATE", "py/shop/cart.py", 1, "constant", undefined, "TAX_RATE = 0.2"],
    [
      "NewInventory",
      "go/store/store.go",
      18,
      "function",
      undefined,
      "func NewInventory() *Inventory",
    ],
    ["Storer", "go/store/store.go", 10, "interface", undefined, "type Storer interface {"],
    [
      "increment_by",
      "rust/src/lib.rs",
      16,
      "method",
      "Counter",
      "pub fn increment_by(&mut self, n: usize)",
    ],
    ["Tick", "rust/src/lib.rs", 7, "interface", undefined, "pub trait Tick"],
    ["Direction", "rust/src/lib.rs", 21, "enum", undefined, "pub enum Direction"],
    [
      "placeOrder",
      "java/com/example/OrderService.java",
      8,
      "method",
      "OrderService",
      "public int placeOrder(String item)",
    ],
    [
      "MAX_ORDERS",
      "java/com/example/OrderService.java",
      4,
      "constant",
      "OrderService",
      "public static final int MAX_ORDERS = 50;",
    ],
    [
      "vector_push",
      "native/vector.c",
      14,
      "function",
      undefined,
      "void vector_push(Vector *v, int value)",
    ],
    ["VECTOR_GROWTH", "native/vector.c", 3, "constant", undefined, "#define VECTOR_GROWTH 2"],
    ["Matrix", "native/matrix.cpp", 3, "class", "linalg", "class Matrix"],
    ["IGreeter", "cs/Greeter.cs", 8, "interface", "Demo", "public interface IGreeter"],
    ["formatted_amount", "rb/invoice.rb", 9, "method", "Invoice", "def formatted_amount"],
    [
      "sendWelcomeMail",
      "php/Mailer.php",
      8,
      "method",
      "Mailer",
      "public function sendWelcomeMail(string $to): bool",
    ],
    ["make_mailer", "php/Mailer.php", 13, "function", undefined, "function make_mailer(): Mailer"],
  ])("find_definition %s → %s:%i", async (symbol, path, line, kind, container, signature) => {
    const { text, details } = await call<FindDefinitionDetails>("find_definition", { symbol });
    const def = details.definitions.find((d) => d.path === path && d.line === line);
    expect(def, text).toMatchObject({ name: symbol, kind, signature });
    expect(def?.container).toBe(container);
    expect(text).toContain(`${path}:${line}`);
  });

  it("find_definition narrows Container.name and reports both C++ declarations", async () => {
    const { details } = await call<FindDefinitionDetails>("find_definition", {
      symbol: "Matrix::determinant",
    });
    expect(details.definitions.map((d) => d.line)).toEqual([6, 9]);
    const go = await call<FindDefinitionDetails>("find_definition", { symbol: "Inventory.Put" });
    expect(go.details.definitions).toHaveLength(1);
    expect(go.details.definitions[0]).toMatchObject({ path: "go/store/store.go", line: 22 });
  });

  it("find_definition suggests the nearest names for an unknown symbol", async () => {
    const { text, details } = await call<FindDefinitionDetails>("find_definition", {
      symbol: "findUserByName",
    });
    expect(details.definitions).toEqual([]);
    expect(details.suggestions[0]).toBe("findUserById");
    expect(text).toContain("Did you mean: findUserById");
    // a name that differs only in case is found, not suggested
    const cased = await call<FindDefinitionDetails>("find_definition", { symbol: "finduserbyid" });
    expect(cased.details.definitions[0]?.name).toBe("findUserById");
  });

  it("skips ignored, dependency, build, binary, huge and minified files", async () => {
    for (const symbol of [
      "ignoredByGitignore",
      "generatedSchemaThing",
      "leftPadFromNodeModules",
      "builtOutputFunction",
      "hugeFileConstant",
      "minifiedBundleFn",
    ]) {
      const { details } = await call<FindDefinitionDetails>("find_definition", { symbol });
      expect(details.definitions, symbol).toEqual([]);
    }
    const paths = [...(await index.ready()).allFiles()].map((f) => f.path);
    expect(paths).not.toContain("src/blob.ts");
  });

  it("reads a file over PARSE_MAX_BYTES as text: searched and referenced, not parsed", async () => {
    const body = Array.from(
      { length: 6000 },
      (_, i) => `export function generatedHelper${i}() { return useLargeTableEntry(${i}); }`,
    ).join("\n");
    expect(body.length).toBeGreaterThan(PARSE_MAX_BYTES);
    ws.write("src/large-table.ts", `${body}\n`);
    index.changed(["src/large-table.ts"]);
    try {
      const defs = await call<FindDefinitionDetails>("find_definition", {
        symbol: "generatedHelper17",
      });
      expect(defs.details.definitions).toEqual([]);
      const refs = await call<FindReferencesDetails>("find_references", {
        symbol: "useLargeTableEntry",
      });
      expect(refs.details).toMatchObject({ total: 6000, files: 1 });
      const lines = (await index.ready()).references("useLargeTableEntry")[0]?.lines;
      expect(lines?.slice(0, 2)).toEqual([1, 2]);
      const found = await call<CodebaseSearchDetails>("codebase_search", {
        query: "large table entry",
      });
      expect(found.details.results.map((r) => r.path)).toContain("src/large-table.ts");
    } finally {
      ws.remove("src/large-table.ts");
      index.changed(["src/large-table.ts"]);
      await index.ready();
    }
  });

  it("find_references groups uses by file with the total and surrounding lines", async () => {
    const { text, details } = await call<FindReferencesDetails>("find_references", {
      symbol: "UserRepository",
    });
    expect(details.total).toBe(5);
    expect(details.files).toBe(3);
    expect(details.groups.map((g) => [g.path, g.lines.map((l) => l.line)])).toEqual([
      ["src/index.ts", [2, 7]],
      ["src/server/http-server.ts", [1, 3]],
      ["src/users.ts", [14]],
    ]);
    expect(details.groups[2]?.lines[0]).toMatchObject({ definition: true });
    expect(text).toContain('5 references to "UserRepository" in 3 files');
    // the line before and after each use
    expect(text).toContain("const server = createServer(users);");
    expect(text.match(/^ {3} {4}2 {2}$/gm)).toHaveLength(1);
    // prose in the README is not a reference
    const prose = await call<FindReferencesDetails>("find_references", {
      symbol: "parseUserRecord",
    });
    expect(prose.details.groups.map((g) => g.path)).toEqual(["src/users.ts"]);
  });

  it("codebase_search ranks the matching definition first, splitting identifiers", async () => {
    const { text, details } = await call<CodebaseSearchDetails>("codebase_search", {
      query: "parse user record",
    });
    expect(details.results[0]).toMatchObject({
      path: "src/users.ts",
      line: 26,
      kind: "function",
      name: "parseUserRecord",
    });
    expect(text.split("\n")[1]).toBe("src/users.ts:26 (function parseUserRecord)");
    const py = await call<CodebaseSearchDetails>("codebase_search", { query: "total price" });
    expect(py.details.results[0]).toMatchObject({ path: "py/shop/cart.py", name: "total_price" });
  });

  it("codebase_search honours max_results and says how many were left out", async () => {
    const { text, details } = await call<CodebaseSearchDetails>("codebase_search", {
      query: "user",
      max_results: 2,
    });
    expect(details.results).toHaveLength(2);
    expect(details.omitted).toBeGreaterThan(0);
    expect(text).toMatch(/more beyond max_results=2/);
  });

  it("bounds output and notes what was left out", async () => {
    const small = new Map(
      createCodebaseTools({ index, maxOutputChars: 200 }).map((tool) => [tool.name, tool]),
    );
    const tool = small.get("find_references");
    const result = await tool?.execute({ symbol: "User" }, ctx("find_references"));
    const text = result?.content[0]?.type === "text" ? result.content[0].text : "";
    expect(text).toMatch(/… \d+ more files? \(\d+ references?\) not shown \(output limit\)\./);
  });

  it("get_project_overview summarises languages, dependencies, entry points and structure", async () => {
    const { text, details } = await call<ProjectOverview>("get_project_overview", {});
    expect(details.files).toBe(17);
    expect(details.languages[0]?.language).toBe("TypeScript");
    const deps = Object.fromEntries(details.manifests.map((m) => [m.path, m.dependencies]));
    expect(deps).toEqual({
      "package.json": ["express", "zod"],
      "py/requirements.txt": ["requests", "flask"],
      "go/go.mod": ["github.com/google/uuid"],
      "rust/Cargo.toml": ["serde"],
    });
    expect(details.entryPoints.slice(0, 2)).toEqual(["src/index.ts", "src/cli.ts"]);
    expect(details.tree.children?.map((c) => c.name)).toContain("src");
    expect(text).toContain("Languages: TypeScript");
    expect(text).toContain("package.json (npm): express, zod; dev: vitest");
    expect(text).toMatch(/src\/ {2}\(4 files, \d+ lines\)/);
  });
});
