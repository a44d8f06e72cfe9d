// OpenAPI schema objects → the JSON Schema a model receives as a tool's parameters.
//
// The input is a dereferenced document (swagger-parser replaced every $ref by the object it
// names), so a recursive schema is a cycle of JavaScript objects. The output is a fresh tree:
// JSON-serialisable (a schema met again inside itself becomes an open `{}` with a note), without
// OpenAPI-only keywords, with OpenAPI 3.0's `nullable` and boolean `exclusiveMinimum/Maximum`
// turned into their JSON Schema forms, and cut at a depth no model needs.

type Json = Record<string, unknown>;

/** Keywords of OpenAPI's schema dialect that JSON Schema validators and models do not know. */
const DROPPED = new Set(["xml", "externalDocs", "discriminator", "example", "deprecated"]);
/** Nested this deep, a schema is given as an open `{}` (no real tool argument is deeper). */
const MAX_DEPTH = 12;

export function toJsonSchema(schema: unknown): Json {
  return convert(schema, new Set(), 0);
}

function convert(schema: unknown, ancestors: Set<object>, depth: number): Json {
  if (!isObject(schema)) return {};
  if (ancestors.has(schema)) return { description: "(recursive: the same shape as its parent)" };
  if (depth >= MAX_DEPTH) return {};
  ancestors.add(schema);
  const out: Json = {};
  for (const [key, value] of Object.entries(schema)) {
    if (DROPPED.has(key) || key.startsWith("x-")) continue;
    switch (key) {
      case "properties":
      case "patternProperties":
      case "$defs":
      case "definitions":
        if (isObject(value)) {
          out[key] = Object.fromEntries(
            Object.entries(value).map(([name, sub]) => [name, convert(sub, ancestors, depth + 1)]),
          );
        }
        break;
      case "items":
      case "additionalProperties":
      case "not":
      case "contains":
      case "propertyNames":
      case "if":
      case "then":
      case "else":
        out[key] = typeof value === "boolean" ? value : convert(value, ancestors, depth + 1);
        break;
      case "allOf":
      case "anyOf":
      case "oneOf":
      case "prefixItems":
        if (Array.isArray(value)) out[key] = value.map((sub) => convert(sub, ancestors, depth + 1));
        break;
      default:
        out[key] = structuredCloneJson(value);
    }
  }
  ancestors.delete(schema);
  // OpenAPI 3.0: `nullable: true` beside a type; JSON Schema: the type list holds "null"
  if (out.nullable === true) {
    if (typeof out.type === "string") out.type = [out.type, "null"];
    else if (Array.isArray(out.type) && !out.type.includes("null"))
      out.type = [...out.type, "null"];
  }
  delete out.nullable;
  // OpenAPI 3.0 (draft 4): `exclusiveMinimum: true` qualifies `minimum`; JSON Schema: a number
  for (const [flag, bound] of [
    ["exclusiveMinimum", "minimum"],
    ["exclusiveMaximum", "maximum"],
  ] as const) {
    if (typeof out[flag] === "boolean") {
      if (out[flag] === true && typeof out[bound] === "number") {
        out[flag] = out[bound];
        delete out[bound];
      } else {
        delete out[flag];
      }
    }
  }
  return out;
}

/** Plain data copied (enum values, defaults, formats); anything cyclic or odd becomes undefined. */
function structuredCloneJson(value: unknown): unknown {
  try {
    return JSON.parse(JSON.stringify(value)) as unknown;
  } catch {
    return undefined;
  }
}

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
