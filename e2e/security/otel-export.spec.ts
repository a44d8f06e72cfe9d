import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "@playwright/test";
import { freePort, startApp, startFakeLlm } from "../crash/app-server.js";
import {
  type OtlpReceiver,
  type ReceivedSpan,
  startOtlpReceiver,
} from "../support/otlp-receiver.js";
import { errorEvents, type FakeTurn, Servers, secret, summary, toolResults } from "./harness.js";

// Issue #28, the export side, over real HTTP against the production build: the app started with
// OTEL_* pointing at a test receiver (../support/otlp-receiver.ts) exports one trace per run in
// the OpenTelemetry GenAI semantic conventions. One run holds a tool call (bash), a sub-agent
// (researcher), a fold (branch), and an ask-N-ways group runs beside it; both OTLP/HTTP encodings
// are exercised, one app each: http/protobuf with content capture off, http/json with
// OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true. A secret planted in the environment
// (a name the redaction knows) and in a workspace file that a tool reads, and the OTLP header
// credential, never appear in an exported attribute, event or resource, content on or off; tool
// processes see no OTEL_* variable. The span names and attributes are core's
// (packages/core/src/telemetry/names.ts); a bad OTEL_* value stops the start naming it.

const CONTENT_ATTRIBUTES = [
  "gen_ai.input.messages",
  "gen_ai.output.messages",
  "gen_ai.system_instructions",
  "gen_ai.tool.call.arguments",
  "gen_ai.tool.call.result",
];

/** Every string of a span a backend would store, for the secret search. */
function exported(span: ReceivedSpan): string {
  return JSON.stringify(
    {
      name: span.name,
      attributes: span.attributes,
      events: span.events,
      links: span.links,
      status: span.status,
      resource: span.resource,
    },
    (_key, value: unknown) => (typeof value === "bigint" ? value.toString() : value),
  );
}

const op = (span: ReceivedSpan) => span.attributes["gen_ai.operation.name"];
const kindOf = (span: ReceivedSpan) => span.attributes["arbor.loop.kind"];

for (const mode of [
  { protocol: "http/protobuf", encoding: "protobuf", content: false },
  { protocol: "http/json", encoding: "json", content: true },
] as const) {
  test.describe(`${mode.protocol}, content ${mode.content ? "on" : "off"}`, () => {
    let receiver: OtlpReceiver;
    let servers: Servers;
    const planted = secret("planted-e2e");
    const otlpCredential = secret("otlp-credential");

    test.beforeAll(async () => {
      receiver = await startOtlpReceiver();
      const workspace = mkdtempSync(join(tmpdir(), "arbor-e2e-otel-"));
      mkdirSync(join(workspace, ".arbor", "agents"), { recursive: true });
      writeFileSync(
        join(workspace, ".arbor", "agents", "researcher.md"),
        "---\nname: researcher\ndescription: Reads notes\ntools: read_file\n---\nYou research notes.\n",
      );
      writeFileSync(join(workspace, "notes.txt"), `line 1: the vault code is ${planted}\n`);
      const dataDir = mkdtempSync(join(tmpdir(), "arbor-e2e-otel-data-"));
      servers = await Servers.start({
        dirs: { workspace, dataDir },
        env: {
          OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
          OTEL_EXPORTER_OTLP_PROTOCOL: mode.protocol,
          OTEL_EXPORTER_OTLP_HEADERS: `Authorization=Bearer%20${otlpCredential}`,
          OTEL_SERVICE_NAME: "arbor-e2e",
          OTEL_RESOURCE_ATTRIBUTES: "deployment.environment.name=e2e",
          // short delays so the test need not wait out the defaults (5 s, 60 s)
          OTEL_BSP_SCHEDULE_DELAY: "200",
          OTEL_METRIC_EXPORT_INTERVAL: "1000",
          ...(mode.content && { OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: "true" }),
          // a name the redaction knows (…SECRET…): its value is a known secret
          E2E_PLANTED_SECRET: planted,
        },
      });
    });

    test.afterAll(async () => {
      await servers?.close();
      await receiver?.close();
    });

    test("a run with a tool call, a sub-agent and a fold is one trace of invoke_agent / chat / execute_tool spans", async () => {
      const api = servers.api;
      await servers.resetFake();
      const turns: FakeTurn[] = [
        // the parent: a tool call that prints the tool process's environment
        {
          blocks: [
            { type: "toolCall", id: "toolu_env", name: "bash", arguments: { command: "printenv" } },
          ],
          usage: { input: 100, output: 10 },
        },
        // the parent: a sub-agent
        {
          blocks: [
            {
              type: "toolCall",
              id: "toolu_sub",
              name: "researcher",
              arguments: { task: "Read notes.txt." },
            },
          ],
        },
        // the sub-agent reads the file holding the secret, then repeats it in its answer
        {
          blocks: [
            {
              type: "toolCall",
              id: "toolu_read",
              name: "read_file",
              arguments: { path: "notes.txt" },
            },
          ],
        },
        { blocks: [{ type: "text", text: `The vault code is ${planted}.` }] },
        // the parent: a fold, the secret in its arguments
        {
          blocks: [
            {
              type: "toolCall",
              id: "toolu_fold",
              name: "branch",
              arguments: {
                description: "check the code",
                prompt: `Check ${planted} against nothing.`,
              },
            },
          ],
        },
        {
          blocks: [
            {
              type: "toolCall",
              id: "toolu_ret",
              name: "return",
              arguments: { message: "Checked." },
            },
          ],
        },
        { blocks: [{ type: "text", text: "All done." }] },
      ];
      await servers.script(turns);
      const id = await api.createSession(
        { approval_policy: { type: "auto_approve_all" }, folding: { enabled: true } },
        "traced run",
      );
      const events = await api.send(id, { type: "text", text: "Check the notes." });
      expect(errorEvents(events), summary(events)).toEqual([]);
      expect((await servers.fakeRequests()).length).toBe(turns.length);

      // tool processes see no OTEL_* variable and no credential of the export
      const env = toolResults(await api.messages(id)).find((r) => r.tool_call_id === "toolu_env");
      expect(env?.text).toContain("PATH=");
      expect(env?.text).not.toContain("OTEL_");
      expect(env?.text).not.toContain(otlpCredential);

      // the run's root span, and everything of its trace
      const root = await receiver.waitFor(
        () =>
          receiver.spans.find(
            (s) => op(s) === "invoke_agent" && s.parentSpanId === undefined && kindOf(s) === "run",
          ),
        20_000,
        "the run's invoke_agent span",
      );
      const tree = await receiver.waitFor(
        () => {
          const spans = receiver.spans.filter((s) => s.traceId === root.traceId);
          const tools = spans.filter((s) => op(s) === "execute_tool");
          return (
            tools.length >= 4 && spans.filter((s) => op(s) === "invoke_agent").length >= 3 && spans
          );
        },
        20_000,
        "the run's tool and agent spans",
      );
      const byId = new Map(tree.map((s) => [s.spanId, s]));
      const ancestors = (span: ReceivedSpan): ReceivedSpan[] => {
        const chain: ReceivedSpan[] = [];
        for (let p = span.parentSpanId; p !== undefined; p = byId.get(p)?.parentSpanId) {
          const parent = byId.get(p);
          if (parent === undefined) break;
          chain.push(parent);
        }
        return chain;
      };
      // every span of the trace leads up to the run's root: one trace per run, no orphans
      for (const span of tree) {
        if (span === root) continue;
        expect(ancestors(span).at(-1)?.spanId, span.name).toBe(root.spanId);
      }
      expect(root).toMatchObject({
        name: expect.stringMatching(/^invoke_agent\b/),
        encoding: mode.encoding,
        resource: {
          "service.name": "arbor-e2e",
          "deployment.environment.name": "e2e",
          "service.instance.id": expect.any(String),
        },
        attributes: { "gen_ai.operation.name": "invoke_agent", "gen_ai.conversation.id": id },
      });

      // chat: one per model request of the run (the sub-agent's and the fold's included)
      const chats = tree.filter((s) => op(s) === "chat");
      expect(chats.length).toBe(turns.length);
      for (const chat of chats) {
        expect(chat.name).toBe("chat claude-test");
        expect(chat.attributes).toMatchObject({
          "gen_ai.provider.name": "anthropic",
          "gen_ai.request.model": "claude-test",
          "gen_ai.usage.input_tokens": expect.any(Number),
          "gen_ai.usage.output_tokens": expect.any(Number),
          "gen_ai.response.finish_reasons": expect.any(Array),
        });
      }
      expect(chats.some((c) => c.attributes["gen_ai.usage.input_tokens"] === 100)).toBe(true);

      // execute_tool: name, call id, approval outcome
      const tool = (callId: string) =>
        tree.find(
          (s) => op(s) === "execute_tool" && s.attributes["gen_ai.tool.call.id"] === callId,
        );
      expect(tool("toolu_env")).toMatchObject({
        name: "execute_tool bash",
        attributes: { "gen_ai.tool.name": "bash", "arbor.approval.outcome": "auto" },
      });
      expect(tool("toolu_env")?.endTimeUnixNano).toBeGreaterThan(
        tool("toolu_env")!.startTimeUnixNano,
      );

      // the sub-agent and the fold: child invoke_agent spans under the call that started them
      const subAgent = tree.find((s) => op(s) === "invoke_agent" && kindOf(s) === "sub_agent");
      expect(subAgent?.parentSpanId).toBe(tool("toolu_sub")?.spanId);
      expect(tool("toolu_read")?.parentSpanId).toBe(subAgent?.spanId);
      const fold = tree.find((s) => op(s) === "invoke_agent" && kindOf(s) === "fold");
      expect(fold?.parentSpanId).toBe(tool("toolu_fold")?.spanId);

      // content: only when the variable says so, and then redacted
      const withContent = tree.filter((s) =>
        CONTENT_ATTRIBUTES.some((name) => s.attributes[name] !== undefined),
      );
      if (mode.content) {
        expect(withContent.length).toBeGreaterThan(0);
        expect(String(tool("toolu_read")?.attributes["gen_ai.tool.call.result"])).toContain(
          "[redacted]",
        );
      } else {
        expect(withContent.map((s) => s.name)).toEqual([]);
      }
      for (const span of receiver.spans) {
        const text = exported(span);
        expect(text.includes(planted), `the planted secret in ${span.name}`).toBe(false);
        expect(text.includes(otlpCredential), `the OTLP credential in ${span.name}`).toBe(false);
        expect(text.includes(servers.providerKey), `the provider key in ${span.name}`).toBe(false);
        expect(text.includes(servers.token), `ARBOR_TOKEN in ${span.name}`).toBe(false);
      }

      // the export carried the configured header, in the configured encoding
      for (const request of receiver.requests) {
        expect(request.encoding).toBe(mode.encoding);
        expect(request.headers.authorization).toBe(`Bearer ${otlpCredential}`);
      }
      expect(receiver.refused).toEqual([]);
    });

    test("an ask-N-ways group: candidates and the judge under one span, the judge linking the candidates", async () => {
      const api = servers.api;
      await servers.resetFake();
      await servers.script([
        { blocks: [{ type: "text", text: "four" }] },
        { blocks: [{ type: "text", text: "4" }] },
        { blocks: [{ type: "text", text: "1. The clearest." }] },
      ]);
      const id = await api.createSession({}, "ask two ways");
      const events = await api.events(`/api/sessions/${id}/messages/parallel`, {
        session_id: id,
        payload: { type: "text", text: "What is 2+2?" },
        candidates: [{ label: "A" }, { label: "B" }],
        judge: { strategy: "llm_judge" },
      });
      expect(
        events.some((e) => e.event === "parallel_verdict"),
        summary(events),
      ).toBe(true);
      const judge = await receiver.waitFor(
        () =>
          receiver.spans.find(
            (s) =>
              op(s) === "invoke_agent" &&
              kindOf(s) === "judge" &&
              s.attributes["gen_ai.conversation.id"] === id,
          ),
        20_000,
        "the judge's invoke_agent span",
      );
      const candidates = receiver.spans.filter(
        (s) => s.traceId === judge.traceId && op(s) === "invoke_agent" && kindOf(s) === "candidate",
      );
      expect(candidates).toHaveLength(2);
      // one parent for the group (invoke_workflow), over the candidates and the judge
      const group = receiver.spans.find((s) => s.spanId === judge.parentSpanId);
      expect(group?.name).toMatch(/^invoke_workflow\b/);
      for (const candidate of candidates) expect(candidate.parentSpanId).toBe(group?.spanId);
      expect(judge.links.map((l) => l.spanId).sort()).toEqual(
        candidates.map((c) => c.spanId).sort(),
      );
    });

    test("metrics arrive: token usage, operation duration, tool calls, active runs", async () => {
      const names = [
        "gen_ai.client.token.usage",
        "gen_ai.client.operation.duration",
        "arbor.tool.calls",
        "arbor.tool.duration",
      ];
      await receiver.waitFor(
        () => names.every((n) => receiver.metrics.some((m) => m.name === n)),
        20_000,
        `metrics ${names.join(", ")}`,
      );
      const usage = receiver.metrics.find((m) => m.name === "gen_ai.client.token.usage");
      expect(usage).toMatchObject({ kind: "histogram", unit: "{token}", encoding: mode.encoding });
      expect(usage?.points.some((p) => p.attributes["gen_ai.token.type"] === "input")).toBe(true);
      const calls = receiver.metrics.filter((m) => m.name === "arbor.tool.calls");
      expect(
        calls.some((m) => m.points.some((p) => p.attributes["gen_ai.tool.name"] === "bash")),
      ).toBe(true);
      expect(receiver.metrics.every((m) => m.resource["service.name"] === "arbor-e2e")).toBe(true);
    });
  });
}

test("a protocol the export cannot speak stops the start, naming the variable", async () => {
  const fake = await startFakeLlm();
  const dataDir = mkdtempSync(join(tmpdir(), "arbor-e2e-otel-bad-"));
  try {
    const started = startApp({
      port: await freePort(),
      dataDir,
      fakeLlmUrl: fake.url,
      env: {
        OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:9",
        OTEL_EXPORTER_OTLP_PROTOCOL: "grpc",
      },
      readyTimeoutMs: 45_000,
    });
    await expect(started).rejects.toThrow(
      /OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" is not supported: use http\/protobuf \(the default\) or http\/json/,
    );
  } finally {
    await fake.kill();
  }
});
