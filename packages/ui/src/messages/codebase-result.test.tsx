import { render, screen, within } from "@testing-library/react";
import { userEvent } from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";
import { msg } from "../test-support/messages.js";
import { MessageCard } from "./message-card.js";

const result = (toolName: string, details: unknown) =>
  msg(
    {
      message_type: "tool_result",
      request_id: "m0",
      tool_call_id: "call-a",
      tool_name: toolName,
      content: [{ type: "text", text: "the text the model got" }],
      status: "success",
      details,
    },
    { role: "tool" },
  );

// jsdom renders and user-event clicks take seconds on a loaded two-core machine
describe("codebase tool results", { timeout: 30_000 }, () => {
  it("find_references lists file:line links that open the file view at that line", async () => {
    const onOpenFile = vi.fn();
    render(
      <MessageCard
        onOpenFile={onOpenFile}
        message={result("find_references", {
          symbol: "UserRepository",
          total: 3,
          files: 2,
          omitted: 0,
          groups: [
            {
              path: "src/index.ts",
              count: 2,
              lines: [
                { line: 2, text: "import …" },
                { line: 7, text: "new UserRepository()" },
              ],
            },
            {
              path: "src/users.ts",
              count: 1,
              lines: [{ line: 14, text: "export class UserRepository {", definition: true }],
            },
          ],
        })}
      />,
    );
    await userEvent.click(screen.getByRole("button", { name: "find_references result" }));
    const list = screen.getByRole("list", { name: "References to UserRepository" });
    expect(within(list).getAllByRole("button")).toHaveLength(3);
    expect(screen.getByText("3 references in 2 files")).toBeDefined();
    await userEvent.click(screen.getByRole("button", { name: "Open src/index.ts:7" }));
    expect(onOpenFile).toHaveBeenCalledWith("src/index.ts", 7);
    expect(screen.queryByText("the text the model got")).toBeNull();
  });

  it("codebase_search and find_definition show ranked links; an unknown symbol its suggestions", async () => {
    const onOpenFile = vi.fn();
    const { unmount } = render(
      <MessageCard
        onOpenFile={onOpenFile}
        message={result("codebase_search", {
          query: "parse user",
          omitted: 4,
          results: [
            {
              path: "src/users.ts",
              line: 26,
              snippet: "function parseUserRecord(line: string): User",
              score: 9,
              kind: "function",
              name: "parseUserRecord",
            },
          ],
        })}
      />,
    );
    await userEvent.click(screen.getByRole("button", { name: "codebase_search result" }));
    await userEvent.click(screen.getByRole("button", { name: "Open src/users.ts:26" }));
    expect(onOpenFile).toHaveBeenCalledWith("src/users.ts", 26);
    expect(screen.getByText("… 4 more")).toBeDefined();
    unmount();

    render(
      <MessageCard
        message={result("find_definition", {
          symbol: "findUser",
          definitions: [],
          suggestions: ["findUserById"],
          omitted: 0,
        })}
      />,
    );
    await userEvent.click(screen.getByRole("button", { name: "find_definition result" }));
    expect(screen.getByText("findUserById")).toBeDefined();
  });

  it("get_project_overview renders the structure as a small tree", async () => {
    render(
      <MessageCard
        message={result("get_project_overview", {
          files: 5,
          lines: 120,
          languages: [{ language: "TypeScript", files: 4, lines: 100, percent: 83.3 }],
          entryPoints: ["src/index.ts"],
          manifests: [
            {
              path: "package.json",
              ecosystem: "npm",
              dependencies: ["zod"],
              devDependencies: [],
              entryPoints: [],
            },
          ],
          tree: {
            name: ".",
            path: "",
            files: 5,
            lines: 120,
            children: [
              {
                name: "src",
                path: "src",
                files: 4,
                lines: 100,
                children: [{ name: "server", path: "src/server", files: 1, lines: 10 }],
              },
            ],
          },
        })}
      />,
    );
    await userEvent.click(screen.getByRole("button", { name: "get_project_overview result" }));
    const tree = screen.getByRole("tree", { name: "Project structure" });
    expect(within(tree).getByText("src/")).toBeDefined();
    expect(within(tree).getByText("server/")).toBeDefined();
    expect(screen.getByText("TypeScript 83.3%", { exact: false })).toBeDefined();
  });

  it("other tools and unexpected details keep the plain text", async () => {
    render(<MessageCard message={result("find_references", { unexpected: true })} />);
    await userEvent.click(screen.getByRole("button", { name: "find_references result" }));
    expect(screen.getByText("the text the model got")).toBeDefined();
  });
});
