import { mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  type ContextMessage,
  ContextMessageSchema,
  type MessageBody,
} from "../model/message-types.js";
import { createDefaultTools } from "../tools/builtin/default-tools.js";
import { Workspace } from "../tools/workspace.js";
import {
  type MessageProcessor,
  type PipelineContext,
  ProcessorError,
  runPipeline,
} from "./pipeline.js";
import { createProcessorRegistry, DEFAULT_PIPELINE } from "./processor-registry.js";

let root: string;
beforeEach(async () => {
  root = await realpath(await mkdtemp(path.join(tmpdir(), "arbor-pipeline-")));
  await writeFile(path.join(root, "notes.md"), "alpha\nbeta\ngamma\n");
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

function message(body: MessageBody): ContextMessage {
  return ContextMessageSchema.parse({
    id: "m1",
    session_id: "s1",
    role: "user",
    body,
    status: "pending",
    created_at: "2025-01-01T00:00:00.000Z",
  });
}

const text = (t: string) => message({ message_type: "text", text: t });

function context(overrides: Partial<PipelineContext> = {}): PipelineContext {
  return {
    mode: "act",
    role: "actor",
    tools: createDefaultTools({ workspaceRoot: root }),
    workspace: new Workspace(root),
    ...overrides,
  };
}

/** A processor that appends its name to a text message and logs that it ran. */
function tagger(name: string, log: string[], kind: "continue" | "complete" = "continue") {
  const processor: MessageProcessor = {
    name,
    async process(m) {
      log.push(name);
      if (m.body.message_type !== "text") return { kind, message: m };
      return { kind, message: { ...m, body: { ...m.body, text: `${m.body.text}+${name}` } } };
    },
  };
  return processor;
}

describe("runPipeline", () => {
  it("runs processors in order and records one timing per processor", async () => {
    const log: string[] = [];
    const result = await runPipeline([tagger("a", log), tagger("b", log)], text("x"), context());
    expect(log).toEqual(["a", "b"]);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.message.body).toEqual({ message_type: "text", text: "x+a+b" });
    expect(result.timings.map((t) => t.processor)).toEqual(["a", "b"]);
    for (const t of result.timings) expect(t.ms).toBeGreaterThanOrEqual(0);
    expect(result.completedBy).toBeUndefined();
  });

  it("Conditional processor execution: complete skips the remaining processors", async () => {
    const log: string[] = [];
    const processors = [tagger("a", log), tagger("done", log, "complete"), tagger("c", log)];
    const result = await runPipeline(processors, text("x"), context());
    expect(log).toEqual(["a", "done"]);
    expect(result).toMatchObject({ ok: true, completedBy: "done" });
    if (result.ok) {
      expect(result.message.body).toEqual({ message_type: "text", text: "x+a+done" });
      expect(result.timings.map((t) => t.processor)).toEqual(["a", "done"]);
    }
  });

  it("Pipeline error handling: a failing processor stops the pipeline and reports timings", async () => {
    const log: string[] = [];
    const failing: MessageProcessor = {
      name: "boom",
      async process() {
        log.push("boom");
        throw new ProcessorError("boom", "the disk is on fire", { recoverable: true });
      },
    };
    const result = await runPipeline(
      [tagger("a", log), failing, tagger("c", log)],
      text("x"),
      context(),
    );
    expect(log).toEqual(["a", "boom"]);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error).toMatchObject({
      processor: "boom",
      message: "the disk is on fire",
      recoverable: true,
    });
    // the trace, for the server's log
    expect(result.error.stack).toContain("the disk is on fire");
    expect(result.timings.map((t) => t.processor)).toEqual(["a", "boom"]);
  });

  it("an unexpected error is reported against the processor as not recoverable", async () => {
    const broken: MessageProcessor = {
      name: "broken",
      async process() {
        throw new TypeError("undefined is not a function");
      },
    };
    const result = await runPipeline([broken], text("x"), context());
    expect(result).toMatchObject({
      ok: false,
      error: { processor: "broken", message: "undefined is not a function", recoverable: false },
    });
  });

  it("stops before the next processor once the signal is aborted", async () => {
    const controller = new AbortController();
    const log: string[] = [];
    const aborter: MessageProcessor = {
      name: "aborter",
      async process(m) {
        controller.abort();
        return { kind: "continue", message: m };
      },
    };
    const result = await runPipeline(
      [aborter, tagger("never", log)],
      text("x"),
      context({ signal: controller.signal }),
    );
    expect(log).toEqual([]);
    expect(result).toMatchObject({ ok: false, error: { processor: "never" } });
  });
});

describe("the default pipeline", () => {
  it("resolves a file reference, filters tools, builds the prompt and optimizes", async () => {
    const registry = createProcessorRegistry();
    const composed = registry.compose();
    expect(composed.ok).toBe(true);
    if (!composed.ok) return;
    expect(composed.processors.map((p) => p.name)).toEqual(DEFAULT_PIPELINE.processors);
    let optimized = 0;
    const ctx = context({
      mode: "plan",
      basePrompt: "Base.",
      optimize: async () => {
        optimized++;
      },
    });
    const ref = message({
      message_type: "file_reference",
      path: "notes.md",
      range: { start_line: 2, end_line: 3 },
    });
    const result = await runPipeline(composed.processors, ref, ctx);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.message.body).toMatchObject({ resolved: { content: "beta\ngamma" } });
    expect(ctx.turnTools?.map((t) => t.name)).toEqual([
      "read_file",
      "list_files",
      "search",
      "present_plan",
      "ask_question",
    ]);
    expect(ctx.systemPrompt?.startsWith("Base.\n\n## Mode: Plan")).toBe(true);
    expect(ctx.systemPrompt).toContain(`The workspace is ${root}.`);
    expect(optimized).toBe(1);
    expect(result.timings.map((t) => t.processor)).toEqual(DEFAULT_PIPELINE.processors);
  });

  it("a failed file reference stops before the prompt is built or anything optimized", async () => {
    const registry = createProcessorRegistry();
    const composed = registry.compose();
    if (!composed.ok) throw new Error(composed.error);
    let optimized = 0;
    const ctx = context({ optimize: async () => void optimized++ });
    const ref = message({ message_type: "file_reference", path: "../../etc/passwd" });
    const result = await runPipeline(composed.processors, ref, ctx);
    expect(result).toMatchObject({ ok: false, error: { processor: "file_reference" } });
    expect(ctx.systemPrompt).toBeUndefined();
    expect(optimized).toBe(0);
  });
});

describe("Branch-specific pipeline configuration", () => {
  it("each branch composes its own pipeline from the registry by name", async () => {
    const log: string[] = [];
    const registry = createProcessorRegistry({ extra: [tagger("redact", log)] });
    const main = registry.compose(undefined);
    const review = registry.compose({ processors: ["redact", "system_prompt"] });
    if (!main.ok || !review.ok) throw new Error("compose failed");
    expect(main.processors.map((p) => p.name)).toEqual(DEFAULT_PIPELINE.processors);
    expect(review.processors.map((p) => p.name)).toEqual(["redact", "system_prompt"]);
    const ctx = context();
    const result = await runPipeline(review.processors, text("x"), ctx);
    expect(result.ok && result.message.body).toEqual({ message_type: "text", text: "x+redact" });
    expect(ctx.turnTools).toBeUndefined(); // no tool_enhancement on this branch
    expect(ctx.systemPrompt).toContain("### write_file");
    // the main branch's pipeline is unaffected
    await runPipeline(main.processors, text("y"), context());
    expect(log).toEqual(["redact"]);
  });

  it("unknown processor names are rejected, all of them named", () => {
    const registry = createProcessorRegistry();
    const result = registry.compose({ processors: ["file_reference", "spellcheck", "translate"] });
    expect(result).toMatchObject({ ok: false, unknown: ["spellcheck", "translate"] });
    if (!result.ok)
      expect(result.error).toMatch(/^unknown pipeline processors: spellcheck, translate/);
  });

  it("a name can be registered once", () => {
    const registry = createProcessorRegistry();
    expect(registry.names()).toEqual(DEFAULT_PIPELINE.processors);
    expect(() => registry.register(tagger("system_prompt", []))).toThrow(/already registered/);
  });
});
