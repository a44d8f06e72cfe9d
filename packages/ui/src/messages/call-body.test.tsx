import type { BodyOf, ContextMessage, FileDiff, ToolCallRequest } from "@arbor/core/browser";
import { render, screen, within } from "@testing-library/react";
import { userEvent } from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";
import { msg } from "../test-support/messages.js";
import { withoutCardCalls } from "./card-calls.js";
import { MessageCard } from "./message-card.js";

// Issue #27, case 1: what a person approves an edit from, and the plan/question bug.

const EDIT: FileDiff = {
  path: "src/math.ts",
  change: "edit",
  added: 1,
  removed: 1,
  hunks: [
    {
      old_start: 4,
      old_lines: 3,
      new_start: 4,
      new_lines: 3,
      lines: [" export function sub(a, b) {", "-  return a - b;", "+  return b - a;", " }"],
    },
  ],
};

const request = (call: Partial<ToolCallRequest> & { name: string }): ContextMessage =>
  msg({
    message_type: "tool_request",
    text: "",
    thinking: [],
    calls: [{ id: "c1", arguments: {}, approval: "pending", ...call }],
  });

function rowsOf(figure: HTMLElement): string[] {
  return Array.from(figure.querySelectorAll("tr[data-change]")).map((row) =>
    Array.from(row.querySelectorAll("td"))
      .map((cell) => cell.textContent ?? "")
      .join("|"),
  );
}

describe("the approval card of a file change", () => {
  it("shows the proposed diff with the path and old/new line numbers before approval", () => {
    render(
      <MessageCard
        message={request({
          name: "edit_file",
          arguments: {
            path: "src/math.ts",
            old_text: "  return a - b;",
            new_text: "  return b - a;",
          },
          preview: { kind: "file_change", path: "src/math.ts", diff: EDIT },
        })}
        onToolDecisions={vi.fn()}
      />,
    );
    const figure = screen.getByRole("figure", { name: "Proposed change to src/math.ts" });
    expect(within(figure).getByText("src/math.ts")).toBeDefined();
    expect(rowsOf(figure)).toEqual([
      "4|4| |export function sub(a, b) {",
      "5||-|  return a - b;",
      "|5|+|  return b - a;",
      "6|6| |}",
    ]);
    // highlighted: the keyword carries highlight.js's class
    expect(figure.querySelector(".hljs-keyword")?.textContent).toBe("export");
    // the raw JSON is not on the card until asked for
    expect(screen.queryByText(/"old_text"/)).toBeNull();
  });

  it("keeps the raw arguments one click away", async () => {
    const user = userEvent.setup();
    render(
      <MessageCard
        message={request({
          name: "edit_file",
          arguments: { path: "src/math.ts", old_text: "a", new_text: "b" },
          preview: { kind: "file_change", path: "src/math.ts", diff: EDIT },
        })}
      />,
    );
    await user.click(screen.getByRole("button", { name: "Raw arguments of edit_file" }));
    expect(screen.getByText(/"old_text": "a"/)).toBeDefined();
  });

  it("shows a new file as its content, and says why an edit would fail", () => {
    render(
      <MessageCard
        message={msg({
          message_type: "tool_request",
          text: "",
          thinking: [],
          calls: [
            {
              id: "w",
              name: "write_file",
              arguments: { path: "notes.md", content: "# Notes\nfirst\n" },
              approval: "pending",
              preview: {
                kind: "file_change",
                path: "notes.md",
                diff: {
                  path: "notes.md",
                  change: "create",
                  added: 2,
                  removed: 0,
                  hunks: [
                    {
                      old_start: 0,
                      old_lines: 0,
                      new_start: 1,
                      new_lines: 2,
                      lines: ["+# Notes", "+first"],
                    },
                  ],
                },
              },
            },
            {
              id: "e",
              name: "edit_file",
              arguments: { path: "gone.ts", old_text: "a", new_text: "b" },
              approval: "pending",
              preview: { kind: "file_change", path: "gone.ts", problem: "File not found: gone.ts" },
            },
          ],
        })}
      />,
    );
    const created = screen.getByRole("figure", { name: "Proposed change to notes.md" });
    expect(created.textContent).toContain("new file");
    expect(rowsOf(created)).toEqual(["|1|+|# Notes", "|2|+|first"]);
    expect(screen.getByRole("note", { name: "Proposed change to gone.ts" }).textContent).toContain(
      "File not found: gone.ts",
    );
  });

  it("after the run shows the applied diff from the result", () => {
    const applied: FileDiff = {
      ...EDIT,
      hunks: [{ ...EDIT.hunks[0]!, old_start: 9, new_start: 9 }],
    };
    const result: BodyOf<"tool_result"> = {
      message_type: "tool_result",
      request_id: "r",
      tool_call_id: "c1",
      tool_name: "edit_file",
      content: [{ type: "text", text: "Edited src/math.ts" }],
      status: "success",
      details: { path: "src/math.ts", old_lines: 1, new_lines: 1, diff: applied },
    };
    render(
      <MessageCard
        message={request({
          name: "edit_file",
          approval: "approved",
          arguments: { path: "src/math.ts", old_text: "a", new_text: "b" },
          preview: { kind: "file_change", path: "src/math.ts", diff: EDIT },
        })}
        toolResults={new Map([["c1", result]])}
      />,
    );
    expect(screen.queryByRole("figure", { name: "Proposed change to src/math.ts" })).toBeNull();
    const figure = screen.getByRole("figure", { name: "Applied change to src/math.ts" });
    expect(rowsOf(figure)[1]).toBe("10||-|  return a - b;");
  });

  it("offers side by side, pairing removed and added lines", async () => {
    const user = userEvent.setup();
    render(
      <MessageCard
        message={request({
          name: "edit_file",
          arguments: {},
          preview: { kind: "file_change", path: "src/math.ts", diff: EDIT },
        })}
      />,
    );
    await user.click(screen.getByRole("radio", { name: "Side by side" }));
    const figure = screen.getByRole("figure", { name: "Proposed change to src/math.ts" });
    // the split table (wide screens) puts the removed line beside the added one
    const split = figure.querySelector("table.table-fixed") as HTMLElement;
    expect(rowsOf(split)).toContain("5|  return a - b;|5|  return b - a;");
  });
});

describe("the approval card of other calls", () => {
  it("shows bash as its command with the working directory", () => {
    render(
      <MessageCard
        message={request({ name: "bash", arguments: { command: "npm test -- --run", cwd: "app" } })}
      />,
    );
    const figure = screen.getByRole("figure", { name: "Command of bash" });
    expect(figure.textContent).toContain("in app");
    expect(figure.textContent).toContain("$ npm test -- --run");
    render(<MessageCard message={request({ name: "bash", arguments: { command: "ls" } })} />);
    expect(screen.getAllByRole("figure", { name: "Command of bash" })[1]?.textContent).toContain(
      "in the workspace root",
    );
  });

  it("shows an MCP call's server and tool", () => {
    render(
      <MessageCard
        message={request({ name: "mcp__everything__echo", arguments: { message: "hi" } })}
      />,
    );
    const call = screen.getByLabelText("MCP call mcp__everything__echo");
    expect(call.textContent).toBe("ServereverythingToolecho");
    expect(
      screen.getByRole("figure", { name: "Arguments of mcp__everything__echo" }).textContent,
    ).toBe("messagehi");
  });
});

describe("plan and question calls (issue #27 bug)", () => {
  const planRequest = msg({
    message_type: "tool_request",
    text: "",
    thinking: [],
    calls: [
      {
        id: "p1",
        name: "present_plan",
        arguments: { summary: "Fix it", steps: [{ title: "Edit" }] },
        approval: "auto_approved",
      },
    ],
  });
  const plan = msg({
    message_type: "plan",
    summary: "Fix it",
    steps: [{ title: "Edit" }],
    tool_call_id: "p1",
  });

  it("leaves out a request whose only call became a Plan card", () => {
    expect(withoutCardCalls([planRequest, plan])).toEqual([plan]);
  });

  it("keeps the request's prose and other calls, and a call whose plan is missing", () => {
    const mixed = msg({
      message_type: "tool_request",
      text: "Reading first.",
      thinking: [],
      calls: [
        {
          id: "q1",
          name: "ask_question",
          arguments: { question: "Which?" },
          approval: "auto_approved",
        },
        { id: "r1", name: "read_file", arguments: { path: "a" }, approval: "auto_approved" },
      ],
    });
    const question = msg({
      message_type: "question",
      question: "Which?",
      choices: [],
      allow_free_text: true,
      tool_call_id: "q1",
    });
    const [shown] = withoutCardCalls([mixed, question]);
    expect(
      shown?.body.message_type === "tool_request" && shown.body.calls.map((c) => c.id),
    ).toEqual(["r1"]);
    // a failed present_plan call (no Plan message) stays, with its error
    expect(withoutCardCalls([planRequest])).toEqual([planRequest]);
  });
});
