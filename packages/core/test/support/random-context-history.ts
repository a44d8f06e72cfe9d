import type { ContextMessage, MessageBody, MessageRole } from "../../src/model/message-types.js";
import { seededRandom } from "./random-history.js";

// Test support (not exported): message factories and a seeded generator of valid branch histories
// for the optimization tests and bench. Deterministic per seed; no dependencies.

const SESSION = "s1";
const WORDS = [
  "parser",
  "config",
  "render",
  "token",
  "stream",
  "handler",
  "session",
  "buffer",
  "cache",
  "index",
];

let clock = Date.UTC(2025, 0, 1);
function stamp(): string {
  clock += 1_000;
  return new Date(clock).toISOString();
}

export function message(id: string, role: MessageRole, body: MessageBody): ContextMessage {
  return { id, session_id: SESSION, role, body, status: "complete", created_at: stamp() };
}

export function text(id: string, role: "user" | "assistant", content: string): ContextMessage {
  return message(id, role, { message_type: "text", text: content });
}

export function fileReference(id: string, path: string, content: string): ContextMessage {
  const lines = content.split("\n").length;
  return message(id, "user", {
    message_type: "file_reference",
    path,
    resolved: { content, start_line: 1, end_line: lines, total_lines: lines, truncated: false },
  });
}

/** A tool_request `id` with one call per name, and its results `${id}.r<k>`. */
export function toolPair(
  id: string,
  calls: Array<{
    name: string;
    args?: Record<string, unknown>;
    output: string;
    status?: "success" | "error";
  }>,
): ContextMessage[] {
  const request = message(id, "assistant", {
    message_type: "tool_request",
    text: "",
    thinking: [],
    calls: calls.map((c, k) => ({
      id: `${id}.c${k}`,
      name: c.name,
      arguments: c.args ?? {},
      approval: "auto_approved",
    })),
  });
  const results = calls.map((c, k) =>
    message(`${id}.r${k}`, "tool", {
      message_type: "tool_result",
      request_id: id,
      tool_call_id: `${id}.c${k}`,
      tool_name: c.name,
      content: [{ type: "text", text: c.output }],
      status: c.status ?? "success",
    }),
  );
  return [request, ...results];
}

export interface HistoryOptions {
  turns: number;
  /** max tool rounds per turn */
  maxRounds?: number;
  /** max lines of a tool output */
  maxOutputLines?: number;
}

/** A valid branch: user turns, tool rounds (request then all its results), answers, files, plans. */
export function randomContextHistory(seed: number, options: HistoryOptions): ContextMessage[] {
  const random = seededRandom(seed);
  const int = (min: number, max: number): number => min + Math.floor(random() * (max - min + 1));
  const pick = <T>(items: readonly T[]): T => items[int(0, items.length - 1)]!;
  const sentence = (n: number): string => Array.from({ length: n }, () => pick(WORDS)).join(" ");
  const out: ContextMessage[] = [];
  let n = 0;
  const id = (): string => `m${seed}-${n++}`;
  for (let turn = 0; turn < options.turns; turn++) {
    const kind = random();
    if (kind < 0.15) {
      out.push(fileReference(id(), `src/${pick(WORDS)}/${pick(WORDS)}.ts`, sentence(int(20, 400))));
    } else if (kind < 0.2) {
      out.push(
        message(id(), "system", {
          message_type: "system_control",
          kind: "notice",
          text: sentence(6),
        }),
      );
    }
    out.push(
      text(
        id(),
        "user",
        `please fix ${pick(WORDS)}_${pick(WORDS)} in src/${pick(WORDS)}.ts: ${sentence(int(5, 60))}`,
      ),
    );
    for (let round = int(0, options.maxRounds ?? 3); round > 0; round--) {
      const calls = Array.from({ length: int(1, 3) }, () => ({
        name: pick(["read_file", "bash", "grep", "write_file"]),
        args: { path: `src/${pick(WORDS)}.ts` },
        output: Array.from({ length: int(1, options.maxOutputLines ?? 200) }, () =>
          sentence(int(2, 10)),
        ).join("\n"),
        status: random() < 0.1 ? ("error" as const) : ("success" as const),
      }));
      out.push(...toolPair(id(), calls));
    }
    if (random() < 0.1) {
      out.push(
        message(id(), "assistant", {
          message_type: "plan",
          summary: sentence(8),
          steps: [{ title: sentence(3) }, { title: sentence(4) }],
        }),
      );
    } else {
      out.push(text(id(), "assistant", sentence(int(5, 120))));
    }
  }
  return out;
}
