import { ErrorResponseSchema, renderSchemaSection } from "@arbor/core";
import { ENDPOINTS, type Endpoint, type NamedSchema } from "./endpoints";

// Renders docs/api.md from the endpoint catalog and the core's zod schemas, with the core's own
// section renderer (the one docs/protocol.md uses), so both documents read alike and neither can
// drift from what the server accepts. Deterministic: no dates, catalog order.

const ERROR_MEANING: Record<400 | 401 | 403 | 404 | 409, string> = {
  400: "`invalid_request`: the body, a query parameter or a header is invalid; `fields` names each problem",
  401: "`unauthorized`: no signed-in person (no valid credential)",
  403: "`forbidden`: the person may not do this (`docs/accounts.md`, the decision table); `message` says why",
  404: "`not_found`: the session (or the branch or merge in the path) does not exist",
  409: "`conflict`: the operation is refused in the session's current state (e.g. not Idle)",
};

const ERROR_SCHEMA: NamedSchema = { title: "ErrorResponse", schema: ErrorResponseSchema };

function anchor(title: string): string {
  return title
    .toLowerCase()
    .replace(/[^a-z0-9_ -]/g, "")
    .replaceAll(" ", "-");
}

function schemaLink(named: NamedSchema): string {
  const link = `[\`${named.title}\`](#${anchor(named.title)})`;
  return named.array ? `array of ${link}` : link;
}

function success(endpoint: Endpoint): string {
  const { response } = endpoint;
  if ("json" in response) return `\`${response.status}\` ${schemaLink(response.json)}`;
  if ("sse" in response) {
    return "`200` `text/event-stream` of session events (see [Server-sent events](#server-sent-events))";
  }
  if ("mcp" in response) {
    return response.status === 405
      ? "`405` no stream (see [mcp.md](mcp.md))"
      : "`200` MCP JSON-RPC (Streamable HTTP; see [mcp.md](mcp.md))";
  }
  if ("auth" in response) return "`200` better-auth's answer (see [accounts.md](accounts.md))";
  return "`204` no body";
}

function endpointSection(endpoint: Endpoint): string {
  const lines = [`### ${endpoint.method} ${endpoint.path}\n`, `${endpoint.summary}\n`];
  if (endpoint.parameters !== undefined) {
    for (const p of endpoint.parameters) {
      lines.push(`- ${p.in === "query" ? "Query" : "Header"} \`${p.name}\`: ${p.description}`);
    }
  }
  if (endpoint.body !== undefined) lines.push(`- Request body: ${schemaLink(endpoint.body)}`);
  lines.push(`- Response: ${success(endpoint)}`);
  const errors = endpoint.errors.map((status) => `  - \`${status}\` ${ERROR_MEANING[status]}`);
  lines.push("- Errors (body: [`ErrorResponse`](#errorresponse)):", ...errors);
  lines.push("  - `500` `internal`: an unexpected failure; the details are in the server log");
  return `${lines.join("\n")}\n`;
}

function overview(): string {
  const rows = ENDPOINTS.map((e) => {
    const body = e.body === undefined ? "" : schemaLink(e.body);
    return `| ${e.method} | \`${e.path}\` | ${body} | ${success(e)} |`;
  });
  return ["| method | path | body | answer |", "| --- | --- | --- | --- |", ...rows, ""].join("\n");
}

/** Every schema the catalog names, once each, in order of first use; ErrorResponse last. */
function schemas(): NamedSchema[] {
  const seen = new Map<string, NamedSchema>();
  for (const endpoint of ENDPOINTS) {
    const named = [endpoint.body, "json" in endpoint.response ? endpoint.response.json : undefined];
    for (const n of named) if (n !== undefined && !seen.has(n.title)) seen.set(n.title, n);
  }
  seen.set(ERROR_SCHEMA.title, ERROR_SCHEMA);
  return [...seen.values()];
}

function schemaSection(named: NamedSchema, isRequest: boolean): string {
  const collapsed = new Set(named.collapsed ?? []);
  const rendered = renderSchemaSection(named.title, named.schema, isRequest ? "input" : "output", {
    collapsed,
  });
  if (collapsed.size === 0) return rendered;
  const fields = [...collapsed].map((f) => `\`${f}\``).join(", ");
  return `${rendered}\nThe variants of ${fields} are documented in [docs/protocol.md](protocol.md#sending-a-message).\n`;
}

export function renderApiDocs(): string {
  const requestTitles = new Set(ENDPOINTS.flatMap((e) => (e.body ? [e.body.title] : [])));
  return [
    "# Arbor HTTP API\n",
    "<!-- Generated from apps/web/lib/api/endpoints.ts and the zod schemas of packages/core/src/protocol.",
    "     Do not edit by hand: run `pnpm --filter @arbor/web docs:api`. A test fails when this file is",
    "     out of date, and another when a route file's methods differ from the catalog. -->\n",
    "The app's route handlers under `apps/web/app/api`. Bodies are JSON with snake_case fields,",
    "validated with the zod schemas of `@arbor/core`. Bodies are strict at every depth: a field the",
    "server does not know, or one it does not take in that place, is answered `400` naming it by its",
    'path (`{"field": "folding.enabeld", "message": "Unrecognized field"}`), never dropped; a route',
    "without a request body takes none or `{}` (decision 0041). Every error is",
    "answered with an [`ErrorResponse`](#errorresponse); a `500` never carries details (they are",
    "logged on the server, with secrets redacted). The server listens on 127.0.0.1 unless `HOST` is set.\n",
    "## Authentication and request rules\n",
    "Every route and page needs a signed-in person (see `docs/accounts.md`), and every route asks",
    "`authorize(actor, action, resource)` before it runs: its decision table is in `docs/accounts.md`.",
    "At first start the server makes the owner and the install token (kept in `<data dir>/token`;",
    "`ARBOR_TOKEN` sets it instead) and prints `Arbor is running at http://127.0.0.1:3000/?token=<token>`.\n",
    "- API clients send `Authorization: Bearer <token>`: a personal token (Settings › Tokens,",
    "  `POST /api/me/tokens`) or the install token, which is the owner's.",
    "- A browser signs in at `/login` (password, passkey or SSO), or opens any page with",
    "  `?token=<install token>` once: the answer is `303` to the same URL without it, with the",
    "  cookie of a new session of the owner (`arbor.session_token`, HttpOnly, SameSite=Lax).",
    "- `/api/auth/**` (better-auth's sign-in endpoints), `/login` and `/invite/<token>` are reached",
    "  without a credential; the checks below still hold.\n",
    "Every request, before it reaches a handler:\n",
    "| status | `error` | when |",
    "| --- | --- | --- |",
    "| `403` | `forbidden` | the `Host` header is not a loopback name nor listed in `ARBOR_ALLOWED_HOSTS` (comma-separated `host` or `host:port`); or a POST/PUT/PATCH/DELETE whose `Origin` is not this server's, with `Sec-Fetch-Site: cross-site`, or with the session cookie but no `Origin` |",
    '| `401` | `unauthorized` | no valid credential (`WWW-Authenticate: Bearer realm="arbor"`); a page answers an HTML form to paste the token instead |',
    "| `429` | `too_many_requests` | 10 failed credentials from one client within 60 s; `Retry-After` says when to try again |",
    "| `415` | `unsupported_media_type` | a POST/PUT/PATCH/DELETE body that is not `application/json` |",
    "| `413` | `payload_too_large` | a body over `ARBOR_MAX_BODY_BYTES` (default 4194304 bytes, 4 MiB): refused by its `Content-Length` before it is read, or once that many bytes have arrived |",
    "| `503` | `shutting_down` | the server is shutting down (SIGTERM): every request but a plain read (GET/HEAD other than an event stream) is refused, with `Retry-After: 1`; try again, behind a load balancer another instance answers |\n",
    "No answer carries CORS headers (`OPTIONS` answers `405`). Every answer carries",
    "`Content-Security-Policy` (scripts only by a per-request nonce, `frame-ancestors 'none'`),",
    "`X-Frame-Options: DENY`, `X-Content-Type-Options: nosniff` and `Referrer-Policy: no-referrer`.\n",
    "## Overview\n",
    overview(),
    "## Endpoints\n",
    ...ENDPOINTS.map(endpointSection),
    "## Server-sent events\n",
    "Streaming endpoints answer `200` with `content-type: text/event-stream`. Each session event is",
    "written as `id: <sequence>`, `event: <name>`, `data: <JSON payload>`, then a blank line. The",
    "sequence increases by one per stored event across the whole session; events that are not",
    "stored (refusals such as `invalid_transition`, storage failures) have no `id:` line. Lines",
    "starting with `:` are comments (the stream's opening line and the heartbeat) and carry no",
    "event. When the server shuts down, every open stream ends with a `retry: 1000` line: reconnect",
    "(with `Last-Event-ID`) and the stored events are replayed, from another instance if there is one.",
    "Event names are `context_update`, `content_delta`, `content_final` and `error`;",
    "`tool_progress` while a tool reports progress; for context folding `fold_started`,",
    "`fold_budget_warning` and `fold_returned`; `subagent_update` while a sub-agent call's child",
    "loop runs (its start, its streamed text, its tool calls, its end with status and usage; see",
    "GET /api/agents); and for ask N ways `parallel_started`, `candidate_delta`, `candidate_tool`,",
    "`candidate_finished` and `parallel_verdict`. Their payloads are documented in",
    "[docs/protocol.md](protocol.md#server-sent-events). A client that loses the connection",
    "reconnects to `GET /api/sessions/{id}/events` with `Last-Event-ID` (or `?after=N`) and",
    "receives every event it missed, then the live ones.\n",
    "### Context folding\n",
    "With `config.folding.enabled` (default off) the session's model is offered `branch",
    "{description, prompt, budget?, timeout_seconds?}`. A `branch` call runs a fold: a child loop",
    "of the same session whose first request holds the system prompt, a note of what the fold is",
    "for, injected fold memories and `prompt`, never the parent's conversation; it has the",
    "parent's tools plus `return {message, remember?}`. Its events, in order:\n",
    "- `fold_started` (`fold_id`, `parent_fold_id`, `depth`, `description`, `budget`,",
    "  `timeout_seconds`, `loop_id`, `tool_call_id`: the `branch` call);",
    "- `fold_budget_warning` once it has used 80% of its budget (`tokens_used`, `tokens_left`):",
    '  its next request carries "N tokens left: finish and return.";',
    "- `fold_returned` (`forced`, `reason`: `budget`, `timeout`, `cancelled`, `parent_returned`",
    "  or `crash`, `tokens_used`, `budget`, `message`: the scrubbed text the parent got as the",
    "  `branch` call's result; a forced one is a partial summary under",
    "  `[fold forced to return: <reason>; N of B tokens used]`);",
    "- `fold_tool` when a call inside it waits for a person (`pending_approval`, with its",
    "  `arguments`) and when that is decided (`approved`, `denied`; `cancelled: true` when the fold",
    "  ended while it waited).\n",
    "A fold's steps are stored with `meta.fold_id` on no branch (`GET /api/sessions/{id}/messages`",
    "never lists them; `GET /api/sessions/{id}/folds` does) and its loop is the `branch` call's",
    "child in the admin loop tree. Limits (`config.folding`): budget 8192 tokens by default, at",
    "most 32768; depth 3 (a deeper `branch` gets an error result naming the depth); timeout 300 s,",
    "at most 600; 10 folds open at once. Interrupting the parent forces its folds (`cancelled`); a",
    "server restart mid-fold marks the fold forced (`crash`) and the `branch` call gets its partial",
    "result. Inside a fold the session's approval policy applies as in the parent: a call it holds",
    "for a person waits (its approval `pending` on the fold's tool_request, a `fold_tool` event) and",
    "POST `/api/sessions/{id}/approvals` decides it at once, while the run goes on: approved, it runs",
    "(once; a second decision is refused), denied, the fold's model gets the denied result;",
    "`remember` adds the tool to the white list. The fold's timeout is paused while it waits;",
    "interrupting the parent denies the call and forces the fold back. A sub-agent's child call",
    "held for a person waits the same way (`subagent_update` of kind `approval`, decided by its",
    "`call_id`). A server restart while such a call (or an ask-N-ways candidate's) waits keeps it",
    "waiting: the session rests in `AwaitingToolApproval` naming it, the fold stays open and its",
    "`branch` call unanswered; once decided it runs once, its result reaches the parent (the fold",
    "ends forced, `crash`, with the output in its result; the sub-agent call's result holds it; a",
    "candidate's call and result continue the active branch) and the parent's run goes on",
    "(decision 0044).\n",
    "## Schemas\n",
    ...schemas().map((named) => schemaSection(named, requestTitles.has(named.title))),
  ]
    .join("\n")
    .replace(/\n{3,}/g, "\n\n")
    .replace(/\n+$/, "\n");
}
