import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

// Route handlers are thin (docs/design.md): validate with the protocol's schemas, load the
// session, call one core method, format the answer. This test holds them to it by reading every
// import of every file under app/api: from @arbor/core only the session API's types and the
// protocol's request schemas, and otherwise only the app's own server helpers and next/server.
// Anything else (a store, a provider, @arbor/core/testing, node:fs) fails with file and name.

const API_DIR = fileURLToPath(new URL("../app/api", import.meta.url));

/** What a route handler may take from @arbor/core. */
const ALLOWED_CORE_NAMES = new Set([
  // protocol: request schemas and the one request → decision mapping
  "CreateSessionRequestSchema",
  "ImportSessionRequestSchema",
  "SendMessageRequestSchema",
  "ParallelMessageRequestSchema",
  "ChooseParallelAnswerRequestSchema",
  "PatchConfigRequestSchema",
  "ApprovalsRequestSchema",
  "ApprovePlanRequestSchema",
  "EditMessageRequestSchema",
  "FileListQuerySchema",
  "PatchSessionRequestSchema",
  "SearchQuerySchema",
  "FileContentQuerySchema",
  "MessagesQuerySchema",
  "CreateBranchRequestSchema",
  "UpdateBranchRequestSchema",
  "MergeRequestSchema",
  "ResolveMergeRequestSchema",
  "TrustDefinitionRequestSchema",
  "RevokeTrustRequestSchema",
  "AddMcpServerRequestSchema",
  "UpdateMcpServerRequestSchema",
  "ExtensionSwitchRequestSchema",
  "AuditQuerySchema",
  "PutBudgetRequestSchema",
  "ShareRequestSchema",
  "CreateLinkRequestSchema",
  "CreateTokenRequestSchema",
  "UpdatePersonRequestSchema",
  "CreateInvitationRequestSchema",
  "SetPasswordRequestSchema",
  "PutProviderKeyRequestSchema",
  "KeyProviderSchema",
  "toMergeDecision",
  // protocol: response body types
  "CreateSessionResponse",
  "ImportSessionResponse",
  "SessionDetail",
  "MessagesResponse",
  "OptimizeResponse",
  "BranchListResponse",
  "ConfigResponse",
  "InterruptResponse",
  "MergeResponse",
  "ErrorResponse",
  "FileListResponse",
  "WorkspaceInstructionsResponse",
  "FileContentResponse",
  "FoldListResponse",
  "SettingsResponse",
  "McpServersResponse",
  "McpServerView",
  "McpPromptRequestSchema",
  "McpPromptResponse",
  "OpenApiSpecsResponse",
  "WorkspaceTrustResponse",
  "BudgetResponse",
  "ProviderKeysResponse",
  "CreatedTokenResponse",
  "CreatedInvitationResponse",
  "McpLookupError",
  "isMcpLookupError",
  "Branch",
  // the session API
  "Session",
  "SessionEvent",
]);

/** Other modules a route handler may import, and which of their names (undefined = any). */
const ALLOWED_MODULES: Record<string, ReadonlySet<string> | undefined> = {
  "@arbor/core": ALLOWED_CORE_NAMES,
  "@/lib/server/runtime": undefined,
  "@/lib/server/http": undefined,
  "@/lib/server/sse": undefined,
  "@/lib/server/operation-sse": undefined,
  "@/lib/server/results": undefined,
  "@/lib/server/audit": undefined,
  "@/lib/server/audit-approvals": undefined,
  "@/lib/server/mcp-servers": undefined,
  "@/lib/server/people/sharing": undefined,
  // people: who may see a session, tokens, invitations, sign-in (docs/accounts.md)
  "@/lib/server/people/access": undefined,
  "@/lib/server/people/auth": undefined,
  "@/lib/server/people/people": undefined,
  "@/lib/server/people/password": undefined,
  "@/lib/server/people/sign-in": undefined,
  "@/lib/server/people/wire": undefined,
  "next/server": undefined,
};

interface ImportViolation {
  file: string;
  problem: string;
}

/** Every import-like construct of a source file that breaks the rules above. */
function importViolations(file: string, source: string): ImportViolation[] {
  const sf = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const out: ImportViolation[] = [];
  const flag = (problem: string) => out.push({ file, problem });
  const checkModule = (specifier: string, names: string[] | "all"): void => {
    if (!(specifier in ALLOWED_MODULES)) {
      flag(`imports "${specifier}", which route handlers may not use`);
      return;
    }
    const allowed = ALLOWED_MODULES[specifier];
    if (allowed === undefined) return;
    if (names === "all") {
      flag(`imports all of "${specifier}" (name what you use)`);
      return;
    }
    for (const name of names) {
      if (!allowed.has(name)) flag(`imports ${name} from "${specifier}"`);
    }
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const bindings = clause?.namedBindings;
      if (clause === undefined) checkModule(node.moduleSpecifier.text, []);
      else if (bindings && ts.isNamespaceImport(bindings)) {
        checkModule(node.moduleSpecifier.text, "all");
      } else {
        const names = bindings && ts.isNamedImports(bindings) ? bindings.elements : [];
        const imported = names.map((e) => (e.propertyName ?? e.name).text);
        if (clause.name) imported.push("default");
        checkModule(node.moduleSpecifier.text, imported);
      }
    } else if (
      ts.isExportDeclaration(node) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      const clause = node.exportClause;
      if (clause && ts.isNamedExports(clause)) {
        checkModule(
          node.moduleSpecifier.text,
          clause.elements.map((e) => (e.propertyName ?? e.name).text),
        );
      } else checkModule(node.moduleSpecifier.text, "all");
    } else if (ts.isImportEqualsDeclaration(node)) {
      flag("uses import = require()");
    } else if (ts.isCallExpression(node)) {
      const callee = node.expression;
      if (callee.kind === ts.SyntaxKind.ImportKeyword) flag("uses a dynamic import()");
      if (ts.isIdentifier(callee) && callee.text === "require") flag("uses require()");
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.(ts|tsx|js|mjs)$/.test(entry.name) ? [path] : [];
  });
}

describe("route handlers import only the session API", () => {
  it("every file under app/api keeps to the allowed imports", () => {
    const files = sourceFiles(API_DIR);
    expect(files.length).toBeGreaterThanOrEqual(15);
    const violations = files.flatMap((file) =>
      importViolations(relative(API_DIR, file), readFileSync(file, "utf8")),
    );
    expect(violations).toEqual([]);
  });

  it("catches what it is meant to catch", () => {
    const bad = [
      'import { InMemorySessionStore, SendMessageRequestSchema } from "@arbor/core";',
      'import * as core from "@arbor/core";',
      'import { startFakeLlmServer } from "@arbor/core/testing";',
      'import { readFileSync } from "node:fs";',
      'export * from "@arbor/core";',
      'const db = await import("@arbor/db");',
      'const core = require("@arbor/core");',
      'import type { SessionStore } from "@arbor/core";',
    ].join("\n");
    const problems = importViolations("bad.ts", bad).map((v) => v.problem);
    expect(problems).toEqual([
      'imports InMemorySessionStore from "@arbor/core"',
      'imports all of "@arbor/core" (name what you use)',
      'imports "@arbor/core/testing", which route handlers may not use',
      'imports "node:fs", which route handlers may not use',
      'imports all of "@arbor/core" (name what you use)',
      "uses a dynamic import()",
      "uses require()",
      'imports SessionStore from "@arbor/core"',
    ]);
    const good = [
      'import { SendMessageRequestSchema, type SessionEvent } from "@arbor/core";',
      'import { handle } from "@/lib/server/http";',
    ].join("\n");
    expect(importViolations("good.ts", good)).toEqual([]);
  });
});
