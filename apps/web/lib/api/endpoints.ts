import {
  AddMcpServerRequestSchema,
  AgentsResponseSchema,
  ApprovalsRequestSchema,
  ApprovePlanRequestSchema,
  AuditListResponseSchema,
  AuditQuerySchema,
  AuditVerifyResponseSchema,
  BranchListResponseSchema,
  BranchSchema,
  BudgetResponseSchema,
  ChooseParallelAnswerRequestSchema,
  ConfigResponseSchema,
  CreateBranchRequestSchema,
  CreatedInvitationResponseSchema,
  CreatedLinkSchema,
  CreatedTokenResponseSchema,
  CreateInvitationRequestSchema,
  CreateLinkRequestSchema,
  CreateSessionRequestSchema,
  CreateSessionResponseSchema,
  CreateTokenRequestSchema,
  EditMessageRequestSchema,
  ExtensionSwitchRequestSchema,
  FileContentResponseSchema,
  FileListResponseSchema,
  FoldListResponseSchema,
  ForkLinkResponseSchema,
  ImportSessionRequestSchema,
  ImportSessionResponseSchema,
  InterruptResponseSchema,
  InvitationListResponseSchema,
  LoopTreeResponseSchema,
  McpPromptRequestSchema,
  McpPromptResponseSchema,
  McpServersResponseSchema,
  McpServerViewSchema,
  MeResponseSchema,
  MergeRequestSchema,
  MergeResponseSchema,
  MessagesQuerySchema,
  MessagesResponseSchema,
  OpenApiSpecsResponseSchema,
  OptimizeResponseSchema,
  ParallelChoiceResponseSchema,
  ParallelMessageRequestSchema,
  PatchConfigRequestSchema,
  PatchSessionRequestSchema,
  PeopleResponseSchema,
  PersonSchema,
  PricesResponseSchema,
  ProviderKeysResponseSchema,
  PutBudgetRequestSchema,
  PutProviderKeyRequestSchema,
  ResolveMergeRequestSchema,
  RevokeTrustRequestSchema,
  type renderSchemaSection,
  SearchResponseSchema,
  SendMessageRequestSchema,
  SessionAccessResponseSchema,
  SessionDetailSchema,
  SessionSummarySchema,
  SetPasswordRequestSchema,
  SettingsResponseSchema,
  SharedBranchResponseSchema,
  SharedPersonSchema,
  ShareRequestSchema,
  SharesResponseSchema,
  SkillsResponseSchema,
  TokenListResponseSchema,
  TrustDefinitionRequestSchema,
  UpdateBranchRequestSchema,
  UpdateMcpServerRequestSchema,
  UpdatePersonRequestSchema,
  WorkspaceInstructionsResponseSchema,
  WorkspaceTrustResponseSchema,
} from "@arbor/core";

// The HTTP API as data: every endpoint with its method, path, body, answer and error statuses.
// docs/api.md is rendered from this (render-api-docs.ts), and a test checks it against the route
// files (each path's route.ts exports exactly these methods), so the docs, the schemas and the
// handlers cannot drift apart.

export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/** A zod schema from @arbor/core, named as its docs section is titled. */
export interface NamedSchema {
  title: string;
  schema: Parameters<typeof renderSchemaSection>[1];
  /** top-level fields documented elsewhere (the payload variants in docs/protocol.md) */
  collapsed?: readonly string[];
  /** the answer is an array of this schema */
  array?: boolean;
}

export interface Endpoint {
  method: HttpMethod;
  path: string;
  summary: string;
  /** query parameters or headers, with what they mean */
  parameters?: ReadonlyArray<{ name: string; in: "query" | "header"; description: string }>;
  body?: NamedSchema;
  /** the success answer */
  response:
    | { status: 200 | 201; json: NamedSchema }
    | { status: 200; sse: true }
    | { status: 200 | 405; mcp: true }
    | { status: 200; auth: true }
    | { status: 204 };
  /** error statuses this endpoint can answer, besides 500 */
  errors: ReadonlyArray<400 | 401 | 403 | 404 | 409>;
}

const MCP_SUMMARY =
  "Arbor as an MCP server for other agents (Streamable HTTP; docs/mcp.md, \"Folding over MCP\"): `branch`, `return` and `fold_status`, and Arbor's read-only tools (read_file, list_files, search and the codebase tools), whose output counts against the active fold's budget. Same credential rule as the rest of the API (`mcp.serve`). A POST without `Mcp-Session-Id` must be `initialize` (the answer carries the new session's id: 256 random bits, bound to the person who opened it); then POST carries JSON-RPC requests (answered as JSON) and DELETE ends the session (its folds go with it). Sessions and their folds are kept in the database, so any instance serves any request of a session. Protocol errors are JSON-RPC error bodies: 400 for a request without a session that is not `initialize`, 404 for a session that does not exist, ended, was idle for an hour or is another person's.";

const s = {
  createSession: { title: "CreateSessionRequest", schema: CreateSessionRequestSchema },
  sendMessage: {
    title: "SendMessageRequest",
    schema: SendMessageRequestSchema,
    collapsed: ["payload"],
  },
  parallelMessage: { title: "ParallelMessageRequest", schema: ParallelMessageRequestSchema },
  chooseParallel: {
    title: "ChooseParallelAnswerRequest",
    schema: ChooseParallelAnswerRequestSchema,
  },
  parallelChoice: { title: "ParallelChoiceResponse", schema: ParallelChoiceResponseSchema },
  patchConfig: { title: "PatchConfigRequest", schema: PatchConfigRequestSchema },
  approvals: { title: "ApprovalsRequest", schema: ApprovalsRequestSchema },
  approvePlan: { title: "ApprovePlanRequest", schema: ApprovePlanRequestSchema },
  editMessage: { title: "EditMessageRequest", schema: EditMessageRequestSchema },
  files: { title: "FileListResponse", schema: FileListResponseSchema },
  instructions: {
    title: "WorkspaceInstructionsResponse",
    schema: WorkspaceInstructionsResponseSchema,
  },
  fileContent: { title: "FileContentResponse", schema: FileContentResponseSchema },
  folds: { title: "FoldListResponse", schema: FoldListResponseSchema },
  createBranch: { title: "CreateBranchRequest", schema: CreateBranchRequestSchema },
  updateBranch: { title: "UpdateBranchRequest", schema: UpdateBranchRequestSchema },
  merge: { title: "MergeRequest", schema: MergeRequestSchema },
  resolveMerge: { title: "ResolveMergeRequest", schema: ResolveMergeRequestSchema },
  created: { title: "CreateSessionResponse", schema: CreateSessionResponseSchema },
  summaries: { title: "SessionSummary", schema: SessionSummarySchema, array: true },
  detail: { title: "SessionDetail", schema: SessionDetailSchema },
  messages: { title: "MessagesResponse", schema: MessagesResponseSchema },
  optimize: { title: "OptimizeResponse", schema: OptimizeResponseSchema },
  branches: { title: "BranchListResponse", schema: BranchListResponseSchema },
  branch: { title: "Branch", schema: BranchSchema },
  config: { title: "ConfigResponse", schema: ConfigResponseSchema },
  interrupt: { title: "InterruptResponse", schema: InterruptResponseSchema },
  mergeResult: { title: "MergeResponse", schema: MergeResponseSchema },
  loops: { title: "LoopTreeResponse", schema: LoopTreeResponseSchema },
  settings: { title: "SettingsResponse", schema: SettingsResponseSchema },
  prices: { title: "PricesResponse", schema: PricesResponseSchema },
  setPassword: { title: "SetPasswordRequest", schema: SetPasswordRequestSchema },
  mcpServers: { title: "McpServersResponse", schema: McpServersResponseSchema },
  mcpServer: { title: "McpServerView", schema: McpServerViewSchema },
  mcpPromptRequest: { title: "McpPromptRequest", schema: McpPromptRequestSchema },
  addMcpServer: { title: "AddMcpServerRequest", schema: AddMcpServerRequestSchema },
  updateMcpServer: { title: "UpdateMcpServerRequest", schema: UpdateMcpServerRequestSchema },
  extensionSwitch: { title: "ExtensionSwitchRequest", schema: ExtensionSwitchRequestSchema },
  mcpPrompt: { title: "McpPromptResponse", schema: McpPromptResponseSchema },
  openApiSpecs: { title: "OpenApiSpecsResponse", schema: OpenApiSpecsResponseSchema },
  workspaceTrust: { title: "WorkspaceTrustResponse", schema: WorkspaceTrustResponseSchema },
  me: { title: "MeResponse", schema: MeResponseSchema },
  tokens: { title: "TokenListResponse", schema: TokenListResponseSchema },
  createToken: { title: "CreateTokenRequest", schema: CreateTokenRequestSchema },
  createdToken: { title: "CreatedTokenResponse", schema: CreatedTokenResponseSchema },
  people: { title: "PeopleResponse", schema: PeopleResponseSchema },
  person: { title: "Person", schema: PersonSchema },
  updatePerson: { title: "UpdatePersonRequest", schema: UpdatePersonRequestSchema },
  invitations: { title: "InvitationListResponse", schema: InvitationListResponseSchema },
  createInvitation: { title: "CreateInvitationRequest", schema: CreateInvitationRequestSchema },
  createdInvitation: {
    title: "CreatedInvitationResponse",
    schema: CreatedInvitationResponseSchema,
  },
  trustDefinition: { title: "TrustDefinitionRequest", schema: TrustDefinitionRequestSchema },
  revokeTrust: { title: "RevokeTrustRequest", schema: RevokeTrustRequestSchema },
  skills: { title: "SkillsResponse", schema: SkillsResponseSchema },
  auditList: { title: "AuditListResponse", schema: AuditListResponseSchema },
  auditVerify: { title: "AuditVerifyResponse", schema: AuditVerifyResponseSchema },
  agents: { title: "AgentsResponse", schema: AgentsResponseSchema },
  rename: { title: "PatchSessionRequest", schema: PatchSessionRequestSchema },
  search: { title: "SearchResponse", schema: SearchResponseSchema },
  importSession: {
    title: "ImportSessionRequest",
    schema: ImportSessionRequestSchema,
    collapsed: ["messages"],
  },
  imported: { title: "ImportSessionResponse", schema: ImportSessionResponseSchema },
  budget: { title: "BudgetResponse", schema: BudgetResponseSchema },
  putBudget: { title: "PutBudgetRequest", schema: PutBudgetRequestSchema },
  providerKeys: { title: "ProviderKeysResponse", schema: ProviderKeysResponseSchema },
  putProviderKey: { title: "PutProviderKeyRequest", schema: PutProviderKeyRequestSchema },
  shares: { title: "SharesResponse", schema: SharesResponseSchema },
  share: { title: "ShareRequest", schema: ShareRequestSchema },
  sharedPerson: { title: "SharedPerson", schema: SharedPersonSchema },
  createLink: { title: "CreateLinkRequest", schema: CreateLinkRequestSchema },
  createdLink: { title: "CreatedLink", schema: CreatedLinkSchema },
  access: { title: "SessionAccessResponse", schema: SessionAccessResponseSchema },
  sharedBranch: {
    title: "SharedBranchResponse",
    schema: SharedBranchResponseSchema,
    collapsed: ["messages"],
  },
  forked: { title: "ForkLinkResponse", schema: ForkLinkResponseSchema },
} satisfies Record<string, NamedSchema>;

export const ENDPOINTS: readonly Endpoint[] = [
  {
    method: "POST",
    path: "/api/sessions",
    summary:
      "Creates a session. The server chooses its workspace (WORKSPACE_DIR); a `config.workspace` sent here is replaced.",
    body: s.createSession,
    response: { status: 201, json: s.created },
    errors: [400],
  },
  {
    method: "POST",
    path: "/api/sessions/import",
    summary:
      "Creates a session from a file written by Export › JSON: its title, its system prompt and its messages, which become the new session's main branch (new ids). The session is at rest: a queued message is left out, a streaming one is kept as incomplete, and a tool call without a result gets a `cancelled` result (nothing runs by being imported). Approval policies, the model and the workspace are this server's defaults, never the file's.",
    body: s.importSession,
    response: { status: 201, json: s.imported },
    errors: [400],
  },
  {
    method: "GET",
    path: "/api/sessions",
    summary:
      "Every session, newest first, with its state, message count and token usage with its cost (`usage.cost_usd`: US dollars at list prices, null when no model of the session has a price; `usage.cost_complete` false when some part has none, so `cost_usd` is then the priced part only; decision 0062).",
    response: { status: 200, json: s.summaries },
    errors: [],
  },
  {
    method: "GET",
    path: "/api/sessions/{id}",
    summary:
      "One session: state, config, branches, pending merges, and the event sequences a client subscribes after (`resume_from_sequence` replays only the running operation).",
    response: { status: 200, json: s.detail },
    errors: [404],
  },
  {
    method: "PATCH",
    path: "/api/sessions/{id}",
    summary:
      "Renames the session. Allowed while it runs; the session list and the page header show the new title.",
    body: s.rename,
    response: { status: 200, json: s.detail },
    errors: [400, 404, 409],
  },
  {
    method: "GET",
    path: "/api/search",
    summary:
      "Full-text search over the messages of every session and branch: the messages holding every word of `q` (case-insensitive), newest first, each with its session and a snippet around the first match.",
    parameters: [
      { name: "q", in: "query", description: "the words to find (required, 1–500 characters)" },
      { name: "limit", in: "query", description: "results at most, 1–200; default 50" },
    ],
    response: { status: 200, json: s.search },
    errors: [400],
  },
  {
    method: "DELETE",
    path: "/api/sessions/{id}",
    summary:
      "Deletes the session and everything it holds, once its running operation has ended. From the moment the delete begins, every request to the session (a message, any operation, a second DELETE) answers 409 `conflict` before anything is accepted; afterwards, 404.",
    response: { status: 204 },
    errors: [404, 409],
  },
  {
    method: "POST",
    path: "/api/sessions/{id}/messages",
    summary:
      "Sends a message; the answer is this operation's events. `session_id` must name the session in the URL. Closing the connection does not stop the operation (a reloading client reconnects through `/events`); POST `/interrupt` does.\n\n" +
      "**While the agent works** (a run is going on, or it waits for a tool approval) a `text` message is not refused: it is stored at once with status `queued` (on no branch yet) and the stream holds one `context_update` whose `message_update` is `{kind: \"queued\", message_id, message_type, role, delivery}`. `delivery` in the body chooses when the model gets it: `steer` (default) at the run's next turn boundary, after the current tool round's results (the round's calls all run) and before the next model request; `follow_up` once the run has ended, as the prompt of a new run that the server starts by itself when the session rests in Idle (one follow-up per run, oldest first). A steering message that finds no boundary (the model's answer was final) is delivered like a follow-up. Delivery is the usual `created` (with the branch it joins) and `completed` updates of the same `message_id`: the message then sits in the transcript where the model saw it. Queued messages are listed by GET `/messages` (`queued`). They are kept, never dropped: while the run waits for an approval they stay queued and are delivered when the decision continues the run (after the tool results); an interrupt (or a run that ends Paused or Failed) keeps them queued until the next run (POST `/resume` or a new message), which takes steering messages at its first request and follow-ups after it; a restart keeps them too. Other payloads (`file_reference`, `workflow`) wait for the running operation to end. A refusal (e.g. a `file_reference` while tool calls wait for approval) is an `error` event with code `invalid_transition`. When the provider refuses a request as too long for its context window, the session optimizes the branch (an `OptimizingContext` `context_update` with `metadata.reason: \"context_overflow\"`, stored like a manual optimization) and sends the request once more; a second refusal ends the run `Failed` with an `error` of code `context_overflow`. An `mcp_resource` payload naming a server that is not connected, or a URI it does not list (nor matches a template of), is refused with 400 naming `payload.server_name` or `payload.resource_uri`, nothing stored.",
    body: s.sendMessage,
    response: { status: 200, sse: true },
    errors: [400, 404, 409],
  },
  {
    method: "POST",
    path: "/api/sessions/{id}/messages/parallel",
    summary:
      "Ask N ways (issue #14, docs/parallel.md): stores one text message on the active branch and answers it with 2–8 candidates at the same time (each the session's settings with its own model, system prompt, temperature or thinking level), then chooses one (`judge.strategy`, default an LLM judge). The stream: `parallel_started` (candidates, loop ids, the group id), then per candidate `candidate_delta`, `candidate_tool` and `candidate_finished`, tagged with its `candidate` index, interleaved; then `parallel_verdict` (the chosen index, the reason, the branch of every candidate, the usage summed over all candidates and the judge). The chosen answer's messages continue the active branch (their `created` / `completed` updates follow the verdict); every other candidate is kept as a branch forked after the user's message (listed by GET `/branches`, mergeable like any branch). Tools follow the session's approval policy: a call that needs approval is a `candidate_tool` with status `pending_approval`, and only that candidate waits until POST `/approvals` decides it (that request's stream holds the decision's `candidate_tool` event; this stream goes on; `remember` adds the tool to the white list at once). Plan-mode tools (`present_plan`, `ask_question`) are not offered to candidates. The admin loop tree shows the group (`parallel_group` on each candidate's loop). POST `/interrupt` stops every candidate; what they wrote is kept. Like a message, it waits for a running operation to end; it is refused (an `error` event, code `invalid_transition`) while tool calls wait for a decision. Several instances: a candidate's call is decided through the instance that runs the group (elsewhere POST `/approvals` answers 409). A candidate or judge `model` whose provider has no key is answered 400 naming the field.",
    body: s.parallelMessage,
    response: { status: 200, sse: true },
    errors: [400, 404, 409],
  },
  {
    method: "POST",
    path: "/api/sessions/{id}/parallel/{group_id}/choose",
    summary:
      "Ask N ways, after the verdict: the conversation goes on with another candidate's answer (`group_id` is the verdict's `group_id`, `candidate` an index of its candidates). In one write, the active branch's messages after the user's question become a new verdict notice (`you chose …`, with the earlier choice and its reason) and that candidate's answer; the answer chosen before moves to that candidate's branch (renamed after it, unless it was renamed by hand); every other branch is unchanged and no message is changed. Answers the new choice and, per candidate, the branch that keeps its answer. Choosing the chosen candidate changes nothing. A group whose verdict notice is not on the active branch → 400 naming `group_id`; an index the group does not have, or a candidate whose branch was deleted → 400 naming `candidate`; while a run is under way → 409.",
    body: s.chooseParallel,
    response: { status: 200, json: s.parallelChoice },
    errors: [400, 404, 409],
  },
  {
    method: "GET",
    path: "/api/sessions/{id}/messages",
    summary:
      'The messages of a branch, in order: every message, or what the model sees; and the session\'s `queued` messages (sent while the agent worked, not delivered yet). For the active branch, `context_usage` says what its next request would use: the fixed part (system prompt and tool definitions), the optimized view\'s messages, the window and the optimization trigger and target, counted as the optimizer counts. A `tool_request`\'s call may carry `preview`, what the call will do as its tool describes it when the call is stored (before any approval): for an OpenAPI tool `{kind: "http", method, url, credential?: {env, placement, name?, host}}`, the full URL with its path parameters and query, and the credential\'s variable, where it goes (`bearer`, `basic`, a `header` or `query` parameter `name`) and the host it is sent to, never its value; for `edit_file` and `write_file` `{kind: "file_change", path, diff?, problem?}`, the change against the file on disk read through the workspace\'s confinement (`diff`: `{path, change: "create" | "edit", added, removed, hunks: [{old_start, old_lines, new_start, new_lines, lines}], truncated?}`, each line led by ` `, `-` or `+`), or `problem`, why the call would fail as it stands. Once such a call ran, its `tool_result`\'s `details.diff` is the diff it applied.',
    parameters: queryParameters(MessagesQuerySchema),
    response: { status: 200, json: s.messages },
    errors: [400, 404],
  },
  {
    method: "POST",
    path: "/api/sessions/{id}/messages/{message_id}/edit",
    summary:
      "Edit & resend: forks the active branch just before the message, puts the edited text in its place on the new (now active) branch, and streams the model's answer. A refusal is an `error` event with code `invalid_request`.",
    body: s.editMessage,
    response: { status: 200, sse: true },
    errors: [400, 404],
  },
  {
    method: "POST",
    path: "/api/sessions/{id}/messages/{message_id}/regenerate",
    summary:
      "Regenerate: forks the active branch after the user's message that `message_id` answers (the nearest user message at or before it), makes the new branch active and streams the model's new answer. The earlier answer stays on its branch: the two are siblings (see the branch list). A refusal (not on the active branch, nothing answered yet, the session busy) is an `error` event with code `invalid_request` or `invalid_transition`.",
    response: { status: 200, sse: true },
    errors: [404],
  },
  {
    method: "GET",
    path: "/api/sessions/{id}/events",
    summary:
      "The session's events: first every stored event after the given sequence, then live ones, until the client disconnects. A comment line is sent every 15 s to keep the connection open.",
    parameters: [
      {
        name: "Last-Event-ID",
        in: "header",
        description:
          "replay after this sequence (sent by a reconnecting EventSource); wins over `after`. An integer from 0 to the session's last sequence; anything else → 400 naming `Last-Event-ID`",
      },
      {
        name: "after",
        in: "query",
        description:
          "replay after this sequence; default 0 (all). An integer from 0 to the session's last sequence; anything else → 400 naming `after`",
      },
    ],
    response: { status: 200, sse: true },
    errors: [400, 404],
  },
  {
    method: "POST",
    path: "/api/sessions/{id}/approvals",
    summary:
      "Approves or denies pending tool calls; once none is pending, the loop continues in this stream. A call that waits inside a running operation (an ask-N-ways candidate's `candidate_tool`, a fold's `fold_tool` with status `pending_approval`, a sub-agent's `subagent_update` of kind `approval`, named by its `call_id`) is decided at once, not after that operation: this stream then holds only the decision's event (`candidate_tool` / `fold_tool` / `subagent_update` with `approved` or `denied`; a fold's call also has its approval stored on the fold's tool_request) while the running operation's stream goes on. After a server restart such a call still waits (the session rests in `AwaitingToolApproval` naming it): its decision is stored with who made it before the call runs; approved, it runs once, its result reaches the parent (a fold ends forced `crash` with the output in its result, a sub-agent call's result holds it, a candidate's call and result continue the active branch) and the parent's run goes on in this stream. A call decided before (or denied because its fold ended) is refused with an `error` event (code `invalid_request`, \"tool call … was already approved\"): a call runs at most once. Each decision is stored with the person who made it (`decided_by` on the call and in the decision's event) and the run it continues records them as its `startedBy`. Who may decide follows the session's `approvers` setting (`owner`: its owner only; `collaborators`: its owner and collaborators); a viewer never decides: anyone else → 403 `forbidden`.",
    body: s.approvals,
    response: { status: 200, sse: true },
    errors: [400, 403, 404],
  },
  {
    method: "POST",
    path: "/api/sessions/{id}/plan/approve",
    summary:
      "Approves a plan message: switches to Act mode, records the approval and runs the plan, in this stream. A refusal (not a plan, another operation's state) is an `error` event.",
    body: s.approvePlan,
    response: { status: 200, sse: true },
    errors: [400, 404],
  },
  {
    method: "GET",
    path: "/api/sessions/{id}/files",
    summary:
      "The session's workspace files (WORKSPACE_DIR) for a file picker: paths relative to it, skipping .git, node_modules, target, dist and .next, in name order.",
    parameters: [
      {
        name: "query",
        in: "query",
        description: "case-insensitive substring of the path; default every file",
      },
      { name: "limit", in: "query", description: "files at most, 1–5000; default 200" },
    ],
    response: { status: 200, json: s.files },
    errors: [400, 404],
  },
  {
    method: "GET",
    path: "/api/sessions/{id}/instructions",
    summary:
      "The workspace instructions the next model request gets in its system prompt: AGENTS.md in the directories of the files the conversation works on (nearest first), then AGENTS.md, CLAUDE.md and .arbor/instructions.md at the workspace root, capped in total (`max_chars`). Read afresh on every request, so an edit shows at once.",
    response: { status: 200, json: s.instructions },
    errors: [404],
  },
  {
    method: "GET",
    path: "/api/sessions/{id}/folds",
    summary:
      "The session's folds (context folding, `config.folding.enabled`): each `branch` call's child loop with its description, status (running, returned, forced with the reason), tokens used of its budget, the scrubbed message its parent received, and its steps. The steps are stored on no branch and never reach the parent's context; the fold card and the admin loop tree (the fold's loop under its parent's) show them. A fold has the parent's tools and approval policy: a call the policy holds for a person waits (its approval `pending` on the fold's tool_request, a `fold_tool` event), and POST `/approvals` decides it as in the parent; the fold's timeout is paused while it waits.",
    response: { status: 200, json: s.folds },
    errors: [404],
  },
  {
    method: "GET",
    path: "/api/sessions/{id}/files/content",
    summary:
      "A workspace file's text for the chat's file view (opened from a codebase tool's `file:line`): confined to the workspace like the file tools, at most 512 KiB. 400 names `path` when it lies outside the workspace or is binary; 404 when it does not exist or is not a file.",
    parameters: [
      { name: "path", in: "query", description: "the file, relative to the workspace (required)" },
    ],
    response: { status: 200, json: s.fileContent },
    errors: [400, 404],
  },
  {
    method: "POST",
    path: "/api/sessions/{id}/interrupt",
    summary:
      "Stops the running operation at once (a running tool is cancelled: its process group is killed and its call ends with an error result; a streaming answer is cut and kept as incomplete) and answers once it has stopped, within about a second.",
    response: { status: 200, json: s.interrupt },
    errors: [404],
  },
  {
    method: "POST",
    path: "/api/sessions/{id}/resume",
    summary:
      "Continues a paused run (after an interrupt or the auto-loop limit), or one that failed recoverably (`Failed{recoverable:true}`: a server restart cut it off, a model call failed). After a restart, a tool call that was running has a stored error result `interrupted by a server restart`, so the run goes on with a model request.",
    response: { status: 200, sse: true },
    errors: [404],
  },
  {
    method: "POST",
    path: "/api/sessions/{id}/optimize",
    summary:
      "Optimize now: optimizes the active branch even below the trigger, down to the target (`optimization.target_ratio` of the window), with the configured strategy: old tool outputs are masked (a one-line note in place of each), then older dialogue is summarized (by the session's model, or `optimization.summary_model`, or extractively; a failed model summary falls back to the extractive one), then, only if still over, the oldest dialogue is dropped and summaries last. Stored messages never change: GET `/messages?view=optimized` shows the result and the session's events carry an `OptimizingContext` → `Idle` `context_update` with its figures. `changed: false` when the branch is within the target already. 409 unless the session is Idle.",
    response: { status: 200, json: s.optimize },
    errors: [404, 409],
  },
  {
    method: "PATCH",
    path: "/api/sessions/{id}/config",
    summary: "Changes the session's config; a mode change adds a notice to the transcript.",
    body: s.patchConfig,
    response: { status: 200, json: s.config },
    errors: [400, 404, 409],
  },
  {
    method: "GET",
    path: "/api/sessions/{id}/branches",
    summary: "The session's branches and which one is active.",
    response: { status: 200, json: s.branches },
    errors: [404],
  },
  {
    method: "POST",
    path: "/api/sessions/{id}/branches",
    summary: "Forks the active branch after a message; the new branch becomes active.",
    body: s.createBranch,
    response: { status: 201, json: s.branch },
    errors: [400, 404, 409],
  },
  {
    method: "POST",
    path: "/api/sessions/{id}/branches/{branch_id}/checkout",
    summary: "Makes the branch active.",
    response: { status: 200, json: s.branches },
    errors: [400, 404, 409],
  },
  {
    method: "PATCH",
    path: "/api/sessions/{id}/branches/{branch_id}",
    summary:
      "Renames a branch, or sets / clears its own system prompt (replacing the session's base prompt for that branch only) and its own processing pipeline. Only this branch changes; answers it. A name another branch has, or an unknown processor → 400 naming `name` / `pipeline.processors`; while a run is under way → 409.",
    body: s.updateBranch,
    response: { status: 200, json: s.branch },
    errors: [400, 404, 409],
  },
  {
    method: "DELETE",
    path: "/api/sessions/{id}/branches/{branch_id}",
    summary:
      "Deletes a branch; its messages stay in the session's pool. The active branch cannot be deleted (400: switch to another branch first). A branch that was merged into others can be: they keep its messages and their `merged_from` record, which then names a branch that no longer exists (the graph draws no merge edge for it).",
    response: { status: 204 },
    errors: [400, 404, 409],
  },
  {
    method: "POST",
    path: "/api/sessions/{id}/merges",
    summary:
      "Merges one branch into another. `conflicts` (rebase) and `needs_confirmation` (cherry-pick warnings) wait for `/resolve`.",
    body: s.merge,
    response: { status: 200, json: s.mergeResult },
    errors: [400, 404, 409],
  },
  {
    method: "POST",
    path: "/api/sessions/{id}/merges/{merge_id}/resolve",
    summary: "Resolves a pending merge: conflict resolutions, proceed, or cancel.",
    body: s.resolveMerge,
    response: { status: 200, json: s.mergeResult },
    errors: [400, 404, 409],
  },
  {
    method: "GET",
    path: "/api/people/{person_id}/budget",
    summary:
      "A person's monthly token budget (`monthly_tokens`, null: no limit) and what the runs they started used this calendar month (UTC). Every model request of a run (its turns, sub-agents, folds, candidates, summaries) counts against the person who started it: a request that would pass the budget is refused before it is sent, and the run ends as a failed model request naming the budget (docs/agent-authorization.md). Admins only (`people.manage`), else 403; a person reads their own at GET /api/me/usage.",
    response: { status: 200, json: s.budget },
    errors: [403],
  },
  {
    method: "PUT",
    path: "/api/people/{person_id}/budget",
    summary:
      "Sets a person's monthly token budget (`monthly_tokens`; null lifts it, 0 stops every request). Admins only (`people.manage`), else 403. Answers as GET.",
    body: s.putBudget,
    response: { status: 200, json: s.budget },
    errors: [400, 403],
  },
  {
    method: "GET",
    path: "/api/me/usage",
    summary:
      "The caller's own monthly token budget and usage, as GET /api/people/{person_id}/budget answers it (the usage meter shows what is left).",
    response: { status: 200, json: s.budget },
    errors: [],
  },
  {
    method: "GET",
    path: "/api/settings",
    summary:
      "How this server runs tools: the sandbox of bash and stdio MCP servers (ARBOR_SANDBOX=auto|bubblewrap|off: `bubblewrap` when `bwrap` works here, with the workspace writable, the rest read-only, its own /tmp and PID namespace, the data dir hidden, no network for bash unless ARBOR_SANDBOX_NETWORK=1; `none` or `unavailable` with the reason, what is refused for want of a sandbox (`refused`: beyond loopback or without a person's approval; docs/security.md) and how to fix it) and the names of the environment variables tool processes get (an allow-list, WORKSPACE_DIR and the names in ARBOR_TOOL_ENV; never Arbor's tokens, DATABASE_URL or a provider key). Tool output is redacted of secret values before it is stored or sent to a model.",
    response: { status: 200, json: s.settings },
    errors: [],
  },
  {
    method: "GET",
    path: "/api/settings/prices",
    summary:
      "The price table costs (`cost_usd`) are computed with (docs/cost.md): the list prices shipped with this version (`as_of`, and the page and date of each provider's prices in `sources`) with the data directory's `prices.json` over them (`overridden`). `models`: model id → US dollars per million tokens (input, output, cache reads, cache writes, a long-context tier), or null for a model that has no price; an id not listed has none either. Read as the other settings (`install.read`: owners, admins and members), else 403.",
    response: { status: 200, json: s.prices },
    errors: [],
  },
  {
    method: "GET",
    path: "/api/settings/provider-keys",
    summary:
      "Settings › Model providers (docs/decisions/0054): for each provider (anthropic, openai, google, azure, vertex, bedrock) where the key in force comes from (`settings`: kept here, which wins over the variable; `environment`: the variable; `none`), whether the environment sets the variable, and for a kept key its hint (last four characters), who kept it and when; never a key. `model`: the model a session without its own uses now. The owner and admins only (`install.configure`), else 403.",
    response: { status: 200, json: s.providerKeys },
    errors: [403],
  },
  {
    method: "PUT",
    path: "/api/settings/provider-keys/{provider}",
    summary:
      "Keeps a provider's key (`key`, sent once and never answered, logged or shown again): sealed with AES-256-GCM under the data directory's `provider-keys.key` (made 0600 on first use) or ARBOR_ENCRYPTION_KEY, stored in the database, and used by the next model request of every instance without a restart, as the provider's variable would be (the default model is chosen again: with no ARBOR_PROVIDER, the first provider with a key). Never given to a tool process; tool output and logs are redacted of it. Audited as `provider_key_set` with the hint. 400 names `provider` or `key`; the owner and admins only, else 403. Answers as GET.",
    body: s.putProviderKey,
    response: { status: 200, json: s.providerKeys },
    errors: [400, 403],
  },
  {
    method: "DELETE",
    path: "/api/settings/provider-keys/{provider}",
    summary:
      "Forgets a provider's kept key; the environment's variable, if set, is in force after. 404 when none is kept; 409 when ARBOR_PROVIDER names that provider and no variable holds its key (the server could not choose its model). Audited as `provider_key_removed`. The owner and admins only, else 403. Answers as GET.",
    response: { status: 200, json: s.providerKeys },
    errors: [400, 403, 404, 409],
  },
  {
    method: "POST",
    path: "/api/me/password",
    summary:
      "Sets the caller's password (Settings › Account; docs/accounts.md): a first password needs no `current_password` (the owner made at first start has none); a change needs the current one (400 naming `current_password` when it is missing or wrong). Wrong current passwords count against the account's sign-in limit: past it the answer is 429 with Retry-After. Hashed with argon2id at OWASP's parameters.",
    body: s.setPassword,
    response: { status: 204 },
    errors: [400, 401],
  },
  {
    method: "GET",
    path: "/api/mcp/servers",
    summary:
      "The MCP servers configured in `mcp_servers.json` at the workspace root (or the file named by ARBOR_MCP_CONFIG; the Claude Desktop format, see docs/mcp.md): each one's transport, status (`connecting`, `connected`, `failed` with `error`, `disabled`), and its tools (with the `model_name` the model sees), resources, resource templates and prompts. An invalid entry is listed as `failed` with the wrong field in `error`; the other servers still load. The app answers at once: servers connect in the background, and edits of the file take effect without a restart.",
    response: { status: 200, json: s.mcpServers },
    errors: [],
  },
  {
    method: "POST",
    path: "/api/mcp/servers",
    summary:
      "Adds an MCP server to the app's own config (kept in the database, out of the tools' reach), as an admin: the act trusts it and the audit log records it (`mcp_server_added`). A local server runs in the sandbox as a workspace's does; a variable reference cannot name one of Arbor's secrets. It starts at once and is listed `managed` (`file`: `settings (database)`); the other instances of the database list and start it within seconds (they poll every 2 s). 400 naming the field (`command`, `url`, `args[0]`, …); 409 when a server of any config already has the name.",
    body: s.addMcpServer,
    response: { status: 201, json: s.mcpServer },
    errors: [400, 409],
  },
  {
    method: "PATCH",
    path: "/api/mcp/servers/{name}",
    summary:
      "Turns a server added in the settings (`managed`) off (it stops and its tools go; it stays listed `disabled`) or on again (audit log `mcp_server_disabled` / `mcp_server_enabled`), here at once and on the database's other instances within seconds. 404 for an unknown name; 409 for a server of a file: a workspace file's server is turned on by trusting it (/api/workspace/trust), ARBOR_MCP_CONFIG is the operator's own file.",
    body: s.updateMcpServer,
    response: { status: 200, json: s.mcpServer },
    errors: [400, 404, 409],
  },
  {
    method: "DELETE",
    path: "/api/mcp/servers/{name}",
    summary:
      "Removes a server added in the settings (`managed`): it stops and its tools go, here at once and on the database's other instances within seconds (audit log `mcp_server_removed`). 404 for an unknown name; 409 for a server of a file.",
    response: { status: 204 },
    errors: [404, 409],
  },
  {
    method: "POST",
    path: "/api/mcp/servers/{name}/reconnect",
    summary:
      "Drops one server's connection and connects it again (a stdio server's process is restarted); answers the server once the attempt has ended, `connected` or `failed` with the reason. 404 for a name that is not an enabled, valid entry; 409 for a server of a workspace file no person has trusted (it is not started, whoever asks).",
    response: { status: 200, json: s.mcpServer },
    errors: [404, 409],
  },
  {
    method: "POST",
    path: "/api/mcp/servers/{name}/prompts/{prompt}",
    summary:
      "Expands one of the server's prompts (`prompts/get`) with its arguments and answers its messages as text; the composer's `/` commands put them in the message box. A missing required argument → 400 naming `arguments.<name>`; a server that is not connected or a prompt it does not offer → 404.",
    body: s.mcpPromptRequest,
    response: { status: 200, json: s.mcpPrompt },
    errors: [400, 404],
  },
  {
    method: "POST",
    path: "/api/mcp",
    summary: MCP_SUMMARY,
    response: { status: 200, mcp: true },
    errors: [],
  },
  {
    method: "GET",
    path: "/api/mcp",
    summary:
      "The stream for notifications the server would send on its own: this server sends none, so a known session is answered 405 (as the MCP spec allows); see POST /api/mcp.",
    response: { status: 405, mcp: true },
    errors: [],
  },
  {
    method: "DELETE",
    path: "/api/mcp",
    summary: "Ends the MCP session named by `Mcp-Session-Id`; see POST /api/mcp.",
    response: { status: 200, mcp: true },
    errors: [],
  },
  {
    method: "GET",
    path: "/api/openapi/specs",
    summary:
      "The OpenAPI 3.x specs listed in `<workspace>/.arbor/openapi.json` (see docs/openapi.md), read once at start: each one's status (`loading`, `loaded`, `failed` with `error`), where its calls go (`base_url`), the environment variable holding its credential and whether it is set (never its value), the operations left out (`warnings`), and its tools: one per operation, named by its operationId (`<name_prefix>__<operationId>` with a prefix). The tools run through the approval gate like every tool; a call answers `{METHOD} {URL} → {STATUS}` and the body (at most 32 KiB), a status outside 2xx is a failed tool result. An invalid entry is listed as `failed` with the wrong field in `error`; the other specs still load.",
    response: { status: 200, json: s.openApiSpecs },
    errors: [],
  },
  {
    method: "GET",
    path: "/api/workspace/trust",
    summary:
      "The workspace's executable configuration (docs/security.md, \"Workspace trust\"): every MCP server of `mcp_servers.json` and `.mcp.json` and every spec of `.arbor/openapi.json`, what it would do once trusted (`runs`: the command and arguments, URLs fetched, which credential goes to which host), its hash and its `status`: `trusted`, `untrusted` (never trusted: inert) or `changed` (trusted once, edited since: inert again). A definition starts nothing, reads nothing outside the workspace and fetches nothing until a person trusts it as it is now. Files are reread for the answer. `trust_all`: ARBOR_TRUST_WORKSPACE_CONFIG=1 trusts everything (scripted setups). The file named by ARBOR_MCP_CONFIG outside the workspace is the user's own and is not listed.",
    response: { status: 200, json: s.workspaceTrust },
    errors: [],
  },
  {
    method: "POST",
    path: "/api/workspace/trust",
    summary:
      "Trusts one definition as it is now, by the `hash` GET showed: the server starts (in the sandbox) or the spec is read and its tools offered. The trust is kept in the database (never in a workspace file), records who gave it, and holds only for that hash: an edit makes the definition `changed` and inert until trusted again. A hash that no longer matches the file → 409 (look again); an unknown file or name → 404. Answers the list as GET does.",
    body: s.trustDefinition,
    response: { status: 200, json: s.workspaceTrust },
    errors: [400, 404, 409],
  },
  {
    method: "DELETE",
    path: "/api/workspace/trust",
    summary:
      "Takes the trust of one definition back: its server stops, its spec's tools go away. No trust recorded for it → 404. Answers the list as GET does.",
    body: s.revokeTrust,
    response: { status: 200, json: s.workspaceTrust },
    errors: [400, 404],
  },
  {
    method: "GET",
    path: "/api/skills",
    summary:
      "The skills the workspace's sessions use, read now: SKILL.md folders (Anthropic's Agent Skills format, front matter `name` and `description`) from `~/.arbor/skills/`, `<workspace>/.claude/skills/` and `<workspace>/.arbor/skills/`, later ones overriding earlier by name; missing directories are skipped. Each session's system prompt lists them in `<available_skills>` (names and descriptions only); the model loads a skill's instructions, and then its files, through the `skill` tool. A malformed SKILL.md is listed in `problems` with the reason and skipped.",
    response: { status: 200, json: s.skills },
    errors: [],
  },
  {
    method: "GET",
    path: "/api/agents",
    summary:
      "The sub-agents of the workspace's agent files, read now: Markdown with YAML front matter (`name`, `description`, `tools`, `model`; the body is the system prompt) in `<workspace>/.claude/agents/` and `<workspace>/.arbor/agents/` (which wins a name clash). Each is a tool named `name` with one parameter, `task`: its call runs a child loop (its own prompt, tools and model; at most 10 turns) whose final text is the result, streamed as `subagent_update` events, recorded under the calling loop in the admin loop tree, its usage counted in the session's. `tools` omitted: the parent's tools (sub-agents excluded); Claude Code's names (`Read`, `Write`, `Edit`, `Bash`, `Grep`, `Glob`) map to Arbor's. `model` omitted or `inherit`: the session's model; `<protocol>/<model>`: another provider. The child's tool calls pass the session's approval policy: a call it would hold for a person waits for one, as a `subagent_update` of kind `approval` decided through POST /approvals, across a restart too (decisions 0035, 0044). A malformed file is listed in `problems` with the reason, and so is an agent whose `name` another tool of the sessions has (a built-in or codebase tool, `skill`, `present_plan`, `ask_question`, an MCP or OpenAPI tool): that tool keeps the name and the agent is not offered (the server log says so too).",
    response: { status: 200, json: s.agents },
    errors: [],
  },
  {
    method: "PATCH",
    path: "/api/skills/{name}",
    summary:
      "Switches a skill off (`enabled: false`) or back on, as an admin (`install.configure`; audit log `skill_disabled` / `skill_enabled`). The switch is kept in the database, per install: from its next turn no session on any instance lists a switched-off skill in `<available_skills>` or loads it through the `skill` tool; GET /api/skills still lists it, `enabled: false`, with who switched it off. Answers the list as GET does. 404 when no skill has that name.",
    body: s.extensionSwitch,
    response: { status: 200, json: s.skills },
    errors: [400, 404],
  },
  {
    method: "PATCH",
    path: "/api/agents/{name}",
    summary:
      "Switches a sub-agent off (`enabled: false`) or back on, as an admin (`install.configure`; audit log `agent_disabled` / `agent_enabled`). The switch is kept in the database, per install: from its next turn no session on any instance offers a switched-off sub-agent as a tool, so none can start it; GET /api/agents still lists it, `enabled: false`. Answers the list as GET does. 404 when no sub-agent has that name.",
    body: s.extensionSwitch,
    response: { status: 200, json: s.agents },
    errors: [400, 404],
  },
  {
    method: "GET",
    path: "/api/sessions/{id}/shares",
    summary:
      "Sharing (docs/sharing.md): the people the session is shared with (role `viewer` or `collaborator`, who shared it and when) and its read-only links (revoked ones too, with who made them). Anyone who may read the session may list them.",
    response: { status: 200, json: s.shares },
    errors: [404],
  },
  {
    method: "POST",
    path: "/api/sessions/{id}/shares",
    summary:
      "Shares the session with a person of the install, by `email` or `user_id`, as `viewer` (reads) or `collaborator` (sends, approves, branches); sharing again changes the role. Only the session's owner may (403). An unknown person, a bad role or the session's own owner → 400 naming the field.",
    body: s.share,
    response: { status: 201, json: s.sharedPerson },
    errors: [400, 403, 404],
  },
  {
    method: "DELETE",
    path: "/api/sessions/{id}/shares/{user_id}",
    summary:
      "Stops sharing the session with the person (the owner's own access cannot be removed). Only the session's owner may; 404 when it was not shared with them.",
    response: { status: 204 },
    errors: [403, 404],
  },
  {
    method: "POST",
    path: "/api/sessions/{id}/links",
    summary:
      "A read-only link to one branch, optionally expiring. The answer holds the token and the page's `url` (`/share/{token}`): shown once, only the token's SHA-256 is stored. Any signed-in person of the install who has the link may open it (GET `/api/links/{token}`) and fork it. Only the session's owner may; an unknown `branch_id` or an `expires_at` in the past → 400 naming it.",
    body: s.createLink,
    response: { status: 201, json: s.createdLink },
    errors: [400, 403, 404],
  },
  {
    method: "DELETE",
    path: "/api/sessions/{id}/links/{link_id}",
    summary:
      "Revokes a read-only link: from now on it answers 404. Only the session's owner may; 404 when there is no open link by that id.",
    response: { status: 204 },
    errors: [403, 404],
  },
  {
    method: "GET",
    path: "/api/sessions/{id}/access",
    summary:
      "The caller's relation to the session (`owner`, `collaborator`, `viewer`, or `none` for an admin reading another's) and what it lets them do: the chat hides the composer and the approve/deny buttons when `can_send` / `can_approve` are false (the API refuses those requests with 403 either way).",
    response: { status: 200, json: s.access },
    errors: [404],
  },
  {
    method: "GET",
    path: "/api/links/{token}",
    summary:
      "The branch behind a read-only link, live: the session's title, the branch's name and its messages as they are now (as GET `/messages` gives them), not a snapshot taken when the link was made. Any signed-in person of the install may open it; an unknown, revoked or expired link, or one whose branch or session was deleted → 404.",
    response: { status: 200, json: s.sharedBranch },
    errors: [404],
  },
  {
    method: "POST",
    path: "/api/links/{token}/fork",
    summary:
      "Forks the linked branch into a new session of the caller's own (the import path: its messages with new ids, this server's default settings). A viewer of the install may not (403: sessions.create). 404 as GET `/api/links/{token}`.",
    response: { status: 201, json: s.forked },
    errors: [403, 404],
  },
  {
    method: "GET",
    path: "/api/admin/sessions",
    summary:
      "Admin (owner and admins; `admin.view`): every session of every person with its state, token usage with its cost (`usage.cost_usd`, null when no model of the session has a price; `usage.cost_complete`) and last activity.",
    response: { status: 200, json: s.summaries },
    errors: [401, 403],
  },
  {
    method: "GET",
    path: "/api/admin/sessions/{id}/loops",
    summary:
      "Admin: the session's loop tree, each agent-loop run with status, timing, usage and the messages it produced, and `usage`, the whole tree's (every run, continuation, sub-agent, fold, candidate and judge loop summed). Every usage carries `cost_usd` (US dollars at list prices; null when the model has no price, never 0) and `cost_complete` (false when some part has no price: `cost_usd` is then the priced part only); a loop is priced by its model (`config.model`), a message by its `model`; `parallel_group.evaluation_usage` is what the judge spent, priced by the judge's model ($0 for the strategies that ask no model); the judge's own loop carries the same tokens, so the tree's `usage` counts them once (decisions 0062, 0066). Owner and admins (`admin.view`). Loop ids read `{session_id}.{provider}.{model}[.thinking].{n}`, with n numbered from the store, so every run keeps its own record across server restarts; a continuation (after an approval, a resume) is a child of the loop that stopped, with `continuation_kind` `default`; a regenerated answer is a `rerun` continuation of the loop that answered the message first, an edit & resend a `branch` continuation of the loop that answered the original message (both tagged with the RFC 3339 time of the request). docs/concepts/sessions.md explains the tree.",
    response: { status: 200, json: s.loops },
    errors: [401, 403, 404],
  },
  {
    method: "GET",
    path: "/api/auth/{...all}",
    summary:
      "better-auth's endpoints, reached without a credential (docs/accounts.md): `GET get-session`, `GET passkey/generate-authenticate-options`, the SSO callback `GET callback/oidc`, … Arbor's own: none.",
    response: { status: 200, auth: true },
    errors: [400, 401, 403],
  },
  {
    method: "POST",
    path: "/api/auth/{...all}",
    summary:
      "better-auth's endpoints, reached without a credential (docs/accounts.md): `sign-in/email` `{email, password}`, `sign-out`, `sign-in/oauth2` `{providerId: \"oidc\"}`, `request-password-reset`, `reset-password`, `change-password`, the passkey ceremonies; and Arbor's `sign-in/install-token` `{token}` (the printed URL's token signs the owner in) and `sign-up/invitation` `{token, name, email, password}`. Failed sign-ins are counted per account and per address in the database: past 5 for an account or 20 for an address within 15 minutes the answer is `429` `too_many_requests` with `Retry-After`, whether or not the account exists. A sign-in starts a new session (a browser's previous one ends).",
    response: { status: 200, auth: true },
    errors: [400, 401, 403],
  },
  {
    method: "GET",
    path: "/api/me",
    summary:
      "The person asking: id, name, email, role, how the request proved who it is (`via`: `session`, `token`, `install_token`), a token's `scope`, and how they can sign in (password, passkeys, SSO).",
    response: { status: 200, json: s.me },
    errors: [401],
  },
  {
    method: "GET",
    path: "/api/me/tokens",
    summary:
      "The caller's personal API tokens, newest first: name, scope, first characters, created, expires, last used (recorded at most once a minute), revoked. Never the secret. The install token is listed among the owner's (`install: true`).",
    response: { status: 200, json: s.tokens },
    errors: [401],
  },
  {
    method: "POST",
    path: "/api/me/tokens",
    summary:
      "A new personal token (`arbor_…`), sent as `Authorization: Bearer`. Its secret is in this answer only; the database keeps its sha256. `scope` caps what it may do whatever the person's role: `read`, `write` (act: send, approve, create, share), `admin`. Making one with a token needs an `admin`-scope token.",
    body: s.createToken,
    response: { status: 201, json: s.createdToken },
    errors: [400, 401, 403],
  },
  {
    method: "DELETE",
    path: "/api/me/tokens/{token_id}",
    summary:
      "Revokes one of the caller's tokens: refused by every instance from the next request (each request asks the database). Revoking the install token (`install-token`) leaves the owner the browser sign-in methods; a new `ARBOR_TOKEN` makes a new one at the next start.",
    response: { status: 204 },
    errors: [401, 403, 404],
  },
  {
    method: "GET",
    path: "/api/people",
    summary: "Admins: everyone of the install, oldest first.",
    response: { status: 200, json: s.people },
    errors: [401, 403],
  },
  {
    method: "PATCH",
    path: "/api/people/{person_id}",
    summary:
      "Admins: changes a person's `role` (never to or from owner; only the owner makes or unmakes admins) or `disabled` (their sessions and tokens are refused at once). A change ends the person's browser sessions. Nobody changes themselves.",
    body: s.updatePerson,
    response: { status: 200, json: s.person },
    errors: [400, 401, 403, 404],
  },
  {
    method: "GET",
    path: "/api/invitations",
    summary:
      "Admins: every invitation, newest first, with its status (`open`, `used`, `revoked`, `expired`) and who made it.",
    response: { status: 200, json: s.invitations },
    errors: [401, 403],
  },
  {
    method: "POST",
    path: "/api/invitations",
    summary:
      "Admins: a one-time link (`<public URL>/invite/<token>`) that makes one account in `role` (only the owner invites admins), optionally bound to `email`, expiring after `expires_in_hours`. The page asks for a name, the address and a password (or SSO when configured); `POST /api/auth/sign-up/invitation` `{token, name, email, password}` does the same for a client. The secret is in this answer only.",
    body: s.createInvitation,
    response: { status: 201, json: s.createdInvitation },
    errors: [400, 401, 403],
  },
  {
    method: "DELETE",
    path: "/api/invitations/{invitation_id}",
    summary: "Admins: revokes an invitation that has not been used.",
    response: { status: 204 },
    errors: [401, 403, 404],
  },
  {
    method: "GET",
    path: "/api/audit",
    summary:
      "The audit log, newest first (docs/audit.md): sign-ins, role changes, shares, tokens, tool approvals and denials, session config changes, workspace trust, MCP/OpenAPI configs loaded. One page of `limit` rows; pass `next_cursor` back as `cursor` for the next (older) page (null: no more). Owners and admins only, with a personal token of `admin` scope (`audit.read`; 403 otherwise). A bad parameter → 400 naming it.",
    parameters: auditParameters(),
    response: { status: 200, json: s.auditList },
    errors: [400, 403],
  },
  {
    method: "GET",
    path: "/api/audit/verify",
    summary:
      "Checks the whole audit chain (docs/audit.md, \"The chain\"): every row's hash over its fields and the previous row's hash, every link, no missing sequence. `ok: false` names the first row that fails and why (`hash_mismatch`: edited; `broken_link`: its prev_hash is not the previous row's hash; `gap`: rows before it were deleted). `head` is the last row's sequence and hash: kept outside the database, it also shows rows deleted from the end. Owners and admins only, as GET /api/audit (403 otherwise).",
    response: { status: 200, json: s.auditVerify },
    errors: [403],
  },
];

/** GET /api/audit's query parameters, described from their schema. */
function auditParameters(): NonNullable<Endpoint["parameters"]> {
  return queryParameters(AuditQuerySchema);
}

/** A route's query parameters, described from their schema. */
function queryParameters(schema: {
  shape: Record<string, { description?: string }>;
}): NonNullable<Endpoint["parameters"]> {
  const shape = schema.shape;
  return Object.entries(shape).map(([name, field]) => ({
    name,
    in: "query" as const,
    description: field.description ?? "",
  }));
}

/** The route file that serves a path: /api/sessions/{id} → app/api/sessions/[id]/route.ts. */
export function routeFileOf(path: string): string {
  return `app${path.replace(/\{((?:\.\.\.)?[a-z_]+)\}/g, "[$1]")}/route.ts`;
}
