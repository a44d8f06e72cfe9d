import { z } from "zod";
import { SESSION_EVENT_SCHEMAS } from "./event-schemas.js";
import type { SessionEventName } from "./events.js";
import { ParallelMessageRequestSchema } from "./parallel.js";
import {
  ApprovalsRequestSchema,
  ApprovePlanRequestSchema,
  CreateBranchRequestSchema,
  CreateSessionRequestSchema,
  EditMessageRequestSchema,
  MergeRequestSchema,
  MessagePayloadSchema,
  PatchConfigRequestSchema,
  ResolveMergeRequestSchema,
  SendMessageRequestSchema,
} from "./requests.js";
import {
  CreateSessionResponseSchema,
  ErrorResponseSchema,
  MergeResponseSchema,
  SessionSummarySchema,
} from "./responses.js";

// docs/protocol.md is generated from the zod schemas, so the documentation cannot drift from what
// the server accepts: a test compares the file with renderProtocolDocs(), and write-docs.ts
// regenerates it. Output is deterministic (no dates, stable order).

type JsonSchema = z.core.JSONSchema.BaseSchema;

interface Row {
  field: string;
  type: string;
  required: boolean;
  description: string;
}

/** Unions up to this size get one block of rows per option; larger ones list their tags only. */
const MAX_EXPANDED_OPTIONS = 6;

function options(s: JsonSchema): JsonSchema[] | undefined {
  const list = s.oneOf ?? s.anyOf;
  return list?.filter((o): o is JsonSchema => typeof o === "object");
}

function asSchema(value: unknown): JsonSchema | undefined {
  return typeof value === "object" && value !== null ? (value as JsonSchema) : undefined;
}

/** The property every option pins with a const (the discriminator), if there is one. */
function discriminatorOf(opts: JsonSchema[]): string | undefined {
  const first = opts[0]?.properties;
  if (first === undefined) return undefined;
  return Object.keys(first).find((key) =>
    opts.every((o) => asSchema(o.properties?.[key])?.const !== undefined),
  );
}

function constraints(s: JsonSchema): string {
  const parts: string[] = [];
  if (s.minLength === 1) parts.push("non-empty");
  else if (s.minLength !== undefined) parts.push(`length ≥ ${s.minLength}`);
  if (s.maxLength !== undefined) parts.push(`length ≤ ${s.maxLength}`);
  // zod's int() adds the safe-integer bounds to every integer; they say nothing to a reader
  if (s.minimum !== undefined && s.minimum !== Number.MIN_SAFE_INTEGER)
    parts.push(`≥ ${s.minimum}`);
  if (s.exclusiveMinimum !== undefined) parts.push(`> ${s.exclusiveMinimum}`);
  if (s.maximum !== undefined && s.maximum !== Number.MAX_SAFE_INTEGER)
    parts.push(`≤ ${s.maximum}`);
  if (s.minItems !== undefined && s.minItems > 0) parts.push(`≥ ${s.minItems} item(s)`);
  return parts.length === 0 ? "" : ` (${parts.join(", ")})`;
}

function typeOf(s: JsonSchema): string {
  if (s.const !== undefined) return JSON.stringify(s.const);
  if (s.enum !== undefined) return s.enum.map((v) => JSON.stringify(v)).join(" \\| ");
  const opts = options(s);
  if (opts !== undefined) {
    const tag = discriminatorOf(opts);
    if (tag !== undefined) {
      const tags = opts.map((o) => JSON.stringify(asSchema(o.properties?.[tag])?.const));
      return `object, by \`${tag}\`: ${tags.join(" \\| ")}`;
    }
    return [...new Set(opts.map(typeOf))].join(" \\| ");
  }
  const base = Array.isArray(s.type) ? s.type.join(" \\| ") : (s.type ?? "any");
  if (s.type === "array") {
    const items = asSchema(s.items);
    const inner = items === undefined ? "any" : typeOf(items);
    return `${inner.includes(" ") ? `(${inner})` : inner}[]${constraints(s)}`;
  }
  if (s.type === "object" && s.properties === undefined) {
    const values = asSchema(s.additionalProperties);
    return `record<string, ${values === undefined ? "any" : typeOf(values)}>`;
  }
  return `${base}${constraints(s)}`;
}

function hasDefault(s: JsonSchema): boolean {
  return s.default !== undefined;
}

function describeField(s: JsonSchema): string {
  const text = (s.description ?? "").replaceAll("|", "\\|").replaceAll("\n", " ");
  if (!hasDefault(s)) return text;
  const fallback = `default \`${JSON.stringify(s.default)}\``;
  return text === "" ? fallback : `${text}; ${fallback}`;
}

/**
 * Rows for an object's properties, recursing into nested objects, arrays of objects and small
 * unions, except into the top-level fields named in `collapsed` (documented in their own section).
 */
function rowsOf(
  s: JsonSchema,
  prefix: string,
  out: Row[],
  collapsed: ReadonlySet<string> = new Set(),
): void {
  const required = new Set(s.required ?? []);
  for (const [name, value] of Object.entries(s.properties ?? {})) {
    const prop = asSchema(value);
    if (prop === undefined) continue;
    const field = `${prefix}${name}`;
    out.push({
      field,
      type: typeOf(prop),
      required: required.has(name),
      description: describeField(prop),
    });
    if (!collapsed.has(field)) expand(prop, field, out);
  }
}

function expand(prop: JsonSchema, field: string, out: Row[]): void {
  if (prop.properties !== undefined) {
    rowsOf(prop, `${field}.`, out);
    return;
  }
  const items = prop.type === "array" ? asSchema(prop.items) : undefined;
  if (items !== undefined) {
    expand(items, `${field}[]`, out);
    return;
  }
  const opts = options(prop);
  if (opts === undefined || opts.length > MAX_EXPANDED_OPTIONS) return;
  const tag = discriminatorOf(opts);
  if (tag === undefined) return;
  for (const option of opts) {
    const value = JSON.stringify(asSchema(option.properties?.[tag])?.const);
    const optionRows: Row[] = [];
    rowsOf(option, `${field}{${tag}=${value}}.`, optionRows);
    out.push(...optionRows.filter((row) => !row.field.endsWith(`}.${tag}`)));
  }
}

function table(rows: Row[]): string {
  if (rows.length === 0) return "_no fields_\n";
  const lines = ["| field | type | required | description |", "| --- | --- | --- | --- |"];
  for (const row of rows) {
    lines.push(
      `| \`${row.field}\` | ${row.type} | ${row.required ? "yes" : "no"} | ${row.description} |`,
    );
  }
  return `${lines.join("\n")}\n`;
}

function jsonSchema(schema: z.ZodType, io: "input" | "output"): JsonSchema {
  return z.toJSONSchema(schema, { io, unrepresentable: "any" });
}

/**
 * One section: the schema's description, then a table per object (or per union option). Exported
 * so other generated docs (apps/web's docs/api.md) render schemas the same way.
 */
export function renderSchemaSection(
  title: string,
  schema: z.ZodType,
  io: "input" | "output",
  settings: { about?: string; collapsed?: ReadonlySet<string> } = {},
): string {
  const json = jsonSchema(schema, io);
  const parts = [`### ${title}\n`];
  const about = settings.about ?? json.description;
  if (about !== undefined) parts.push(`${about}\n`);
  const opts = options(json);
  if (opts !== undefined && json.properties === undefined) {
    parts.push("One of:\n");
    for (const option of opts) {
      const rows: Row[] = [];
      rowsOf(option, "", rows);
      parts.push(
        `${option.description === undefined ? "" : `${option.description}\n\n`}${table(rows)}`,
      );
    }
  } else {
    const rows: Row[] = [];
    rowsOf(json, "", rows, settings.collapsed);
    parts.push(table(rows));
  }
  return parts.join("\n");
}

export function renderProtocolDocs(): string {
  const payloadVariants = options(jsonSchema(MessagePayloadSchema, "input")) ?? [];
  const payloadSections = payloadVariants.map((variant) => {
    const type = JSON.stringify(asSchema(variant.properties?.type)?.const);
    const rows: Row[] = [];
    rowsOf(variant, "", rows);
    return `#### payload \`type: ${type}\`\n\n${variant.description ?? ""}\n\n${table(rows)}`;
  });
  const events = (Object.keys(SESSION_EVENT_SCHEMAS) as SessionEventName[]).map((name) => {
    const { schema, about } = SESSION_EVENT_SCHEMAS[name];
    return renderSchemaSection(`\`${name}\``, schema, "output", { about });
  });
  return [
    "# Arbor wire protocol\n",
    "<!-- Generated from the zod schemas in packages/core/src/protocol by renderProtocolDocs().",
    "     Do not edit by hand: run `node --conditions=@arbor/source --import tsx src/protocol/write-docs.ts`",
    "     in packages/core. A test fails when this file is out of date. -->\n",
    "Field names are snake_case. Request bodies are validated with zod: an invalid body is answered",
    "with HTTP 400 and an `ErrorResponse` whose `fields` name each problem by its path",
    "(e.g. `payload.path: Required`). Bodies are strict at every depth: a field the server does not",
    "know is refused, never ignored (`config.folding.enabeld: Unrecognized field`), and so is an",
    "unknown payload `type`.\n",
    "## Sending a message\n",
    renderSchemaSection("SendMessageRequest", SendMessageRequestSchema, "input", {
      collapsed: new Set(["payload"]),
    }),
    `Supported payload types: ${payloadVariants
      .map((v) => `\`${String(asSchema(v.properties?.type)?.const)}\``)
      .join(", ")}.\n`,
    ...payloadSections,
    "## Request bodies\n",
    renderSchemaSection("CreateSessionRequest", CreateSessionRequestSchema, "input"),
    renderSchemaSection("PatchConfigRequest", PatchConfigRequestSchema, "input"),
    renderSchemaSection("ApprovalsRequest", ApprovalsRequestSchema, "input"),
    renderSchemaSection("ParallelMessageRequest", ParallelMessageRequestSchema, "input"),
    renderSchemaSection("ApprovePlanRequest", ApprovePlanRequestSchema, "input"),
    renderSchemaSection("EditMessageRequest", EditMessageRequestSchema, "input"),
    renderSchemaSection("CreateBranchRequest", CreateBranchRequestSchema, "input"),
    renderSchemaSection("MergeRequest", MergeRequestSchema, "input"),
    renderSchemaSection("ResolveMergeRequest", ResolveMergeRequestSchema, "input"),
    "## Response bodies\n",
    renderSchemaSection("CreateSessionResponse", CreateSessionResponseSchema, "output"),
    renderSchemaSection("SessionSummary", SessionSummarySchema, "output"),
    renderSchemaSection("MergeResponse", MergeResponseSchema, "output"),
    renderSchemaSection("ErrorResponse", ErrorResponseSchema, "output"),
    "## Server-sent events\n",
    "Each event is sent as `id: <sequence>`, `event: <name>`, `data: <JSON payload>`. One increasing",
    "sequence per session covers every event; reconnect with `Last-Event-ID` (or `?after=N`) to",
    "replay what was missed.\n",
    ...events,
  ]
    .join("\n")
    .replace(/\n+$/, "\n");
}
