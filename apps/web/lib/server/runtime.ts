import { mkdtempSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import {
  AgentLibrary,
  type AgentsResponse,
  type AppMcpServers,
  agentsResponse,
  CodebaseIndex,
  CommandHooks,
  type CreateSessionRequest,
  costOfUsage,
  createDefaultProviderRegistry,
  createDefaultTools,
  createServedTools,
  DEFAULT_BASE_PROMPT,
  DEFAULT_PIPELINE,
  defaultAgentDirs,
  defaultSkillDirs,
  describeModelConfig,
  detectSandbox,
  EnabledAgents,
  EnabledSkills,
  ExtensionSwitches,
  effectivePrices,
  endGroupsOnShutdown,
  type FileViewResult,
  FoldingMcpHttp,
  FoldMemories,
  FoldMemoryFile,
  type ImportSessionRequest,
  importFoldMemoryFile,
  initialApproval,
  type Logger,
  type LoopTreeResponse,
  loadPriceOverride,
  loopTreeResponse,
  loopTreesFromRecords,
  McpManager,
  type ModelConfigDescription,
  matchingRule,
  mcpConfigSources,
  OpenApiManager,
  openApiConfigPath,
  PriceFileError,
  type PricesResponse,
  readWorkspaceFile,
  refuseInWorkspaces,
  type Session,
  type SessionCoordinator,
  SessionManager,
  type SessionStore,
  type SettingsResponse,
  SkillLibrary,
  type SkillsResponse,
  type StreamProvider,
  sandboxSettings,
  secretsFromEnv,
  securePrivateTree,
  setTelemetrySecrets,
  skillsResponse,
  ToolProcesses,
  ToolRegistry,
  type TrustDefinitionView,
  toolEnvironment,
  toolEnvNames,
  toolNameOwner,
  usePriceOverride,
  WorkspaceTrust,
  type WorkspaceTrustResponse,
  watchApprovalsWaiting,
  withCodebaseTools,
  withoutShadowedAgents,
  withoutVariables,
} from "@arbor/core";
import type { Database, TokenBudgets } from "@arbor/db";
import { audit } from "./audit";
import { dataDirOf } from "./data-dir";
import { servingBeyondLoopback } from "./exposure";
import { idleSessionMs } from "./idle-sessions";
import { installToken } from "./install-token";
import { createRedactingLogger } from "./logger";
import { appMcpServers, followAppMcp } from "./mcp-servers";
import { shareRuntimeGetter } from "./people/admission";
import { People } from "./people/people";
import { POLL_MS, ProviderKeys } from "./provider-keys";
import { maxBodyBytes } from "./request-gate";
import { type OpenedStore, openStore } from "./store";

// The server's one runtime: the store, the SessionManager over it, the model and tools chosen
// from the environment. Built lazily on the first request and kept on globalThis, so Next's dev
// reloads (which re-evaluate modules) reuse it instead of opening a second store and losing the
// sessions' in-memory operation queues.
//
// Environment (official variable names; see @arbor/core modelConfigFromEnv):
//   ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN, an OAuth token), OPENAI_API_KEY, GOOGLE_GENERATIVE_AI_API_KEY, Azure/Vertex/Bedrock's own,
//   *_BASE_URL; ARBOR_PROVIDER and ARBOR_MODEL to choose; no key at all → the offline model.
//   A key an admin keeps in Settings › Model providers stands for its variable and wins over it
//   (provider-keys.ts); ARBOR_ENCRYPTION_KEY replaces the data dir's provider-keys.key that seals it.
//   WORKSPACE_DIR   root of the file tools and file references (default: the start directory)
//   DATABASE_URL / ARBOR_DATA_DIR   the store (see store.ts)
//   <data dir>/prices.json   list prices over the shipped table (docs/cost.md): a bad file
//                  refuses the start, naming the file and the field
//   ARBOR_TOOL_ENV   names of further variables tool processes get (never keys or Arbor's tokens)
//   ARBOR_SANDBOX (auto|bubblewrap|off), ARBOR_SANDBOX_NETWORK=1   the sandbox of bash and stdio MCP
//                  servers (core sandbox.ts); without a working one, sandboxGate refuses them when
//                  HOST / ARBOR_ALLOWED_HOSTS serve beyond loopback (exposure.ts) or no person
//                  approves the run, unless ARBOR_SANDBOX=off
//   ARBOR_MCP_CONFIG   the MCP servers' config file (default: <workspace>/mcp_servers.json and
//                  <workspace>/.mcp.json, whose servers start only once a person trusts them)
//   <workspace>/.claude/settings.json, .claude/settings.local.json, .arbor/settings.json   Claude
//                  Code hooks (docs/hooks.md): each command runs once a person trusts it
//   ARBOR_TRUST_WORKSPACE_CONFIG=1   trusts every definition of the workspace's executable
//                  configuration without asking (scripted setups; logged as a warning)
//   ARBOR_SHUTDOWN_GRACE_MS   how long a SIGTERM lets running operations finish before it
//                  interrupts them (default 5000; shutdown.ts)
//   ARBOR_IDLE_SESSION_SECONDS   a session at rest nobody asked for this long leaves the server's
//                  memory and is read from the database on its next use (default 300; 0: never;
//                  idle-sessions.ts)
//   ARBOR_SUMMARIES=extractive   optimization never asks a model for summaries (default: it asks
//                  the session's model, or the config's optimization.summary_model)
//   <workspace>/.arbor/agents/*.md, .claude/agents/*.md   sub-agents, each a tool (README)
//   ~/.arbor/skills, <workspace>/.claude/skills, <workspace>/.arbor/skills   SKILL.md folders the
//                   model may load (README); HOME decides where ~ is
//   <workspace>/.arbor/openapi.json   OpenAPI specs whose operations become tools (docs/openapi.md);
//                   the variables its `auth.env` names are read at each call, redacted from tool
//                   output and withheld from every tool process (even if ARBOR_TOOL_ENV names them)
// The model's keys stay in this process: only describeModelConfig's redacted view is logged, tool
// processes get an allow-listed environment, and tool output is redacted of every secret value.
//
// Tool processes: each running group is recorded in <data dir>/tool-processes/. At start, the
// groups a previous server left running (killed with -9) are killed; on SIGTERM/SIGINT every
// running group is ended.
//
// MCP servers: one McpManager per process, started with the runtime. It connects the servers in
// the background (nothing waits for them), watches the config file, and adds their tools to every
// session's ToolRegistry beside the built-ins.

type Env = Record<string, string | undefined>;

export interface RuntimeOptions {
  env?: Env;
  /** default: the store openStore picks from the environment */
  store?: SessionStore;
  /** default: every provider of the core's registry (tests pass a ScriptedProvider) */
  provider?: StreamProvider;
  logger?: Logger;
}

export interface Runtime {
  readonly manager: SessionManager;
  readonly store: SessionStore;
  /** the database of people, shares, tokens, audit and budgets (the store's own, or a private one) */
  readonly database: Database;
  /** per-person monthly token budgets and usage (GET/PUT /api/people/{id}/budget) */
  readonly budgets: TokenBudgets;
  /** the people: accounts, tokens, who may reach which session (docs/accounts.md) */
  readonly people: People;
  readonly logger: Logger;
  /** absolute path the file tools are confined to */
  readonly workspace: string;
  /** the default model as it is now (a key kept in Settings may change it), secrets redacted */
  readonly model: ModelConfigDescription;
  /** provider keys kept in Settings › Model providers, and the model they choose */
  readonly providerKeys: ProviderKeys;
  /** ARBOR_DATA_DIR or <cwd>/.data: the store's files, the install token, tool-process records */
  readonly dataDir: string;
  /** the MCP servers of mcp_servers.json (GET /api/mcp/servers) */
  readonly mcp: McpManager;
  /** the servers an admin added in the settings: rows of the database, polled (decision 0056) */
  readonly appMcp: AppMcpServers;
  /** the OpenAPI specs of .arbor/openapi.json (GET /api/openapi/specs) */
  readonly openapi: OpenApiManager;
  /** which definitions of the workspace's executable configuration a person trusted */
  readonly trust: WorkspaceTrust;
  /**
   * The definitions of mcp_servers.json, .mcp.json, .arbor/openapi.json and the settings files'
   * hooks with their trust,
   * the files reread first (GET /api/workspace/trust)
   */
  workspaceTrust(): Promise<WorkspaceTrustResponse>;
  /**
   * Trusts one definition as it is now, on behalf of `by`: `not_found` when the file defines
   * nothing by that name, `changed` when its hash is no longer `hash`
   */
  trustDefinition(
    key: { file: string; name: string; hash: string },
    by: string,
  ): Promise<WorkspaceTrustResponse | "not_found" | "changed">;
  /** Takes one definition's trust back; `not_found` when none is recorded */
  revokeTrust(key: { file: string; name: string }): Promise<WorkspaceTrustResponse | "not_found">;
  /** the skills in use, read now (GET /api/skills) */
  listSkills(): SkillsResponse;
  /** the agent files' sub-agents, read now (GET /api/agents) */
  listAgents(): AgentsResponse;
  /** the skills and sub-agents an admin switched off (PATCH /api/skills/{name}, /api/agents/{name}) */
  readonly switches: ExtensionSwitches;
  /** how tools run (GET /api/settings) */
  readonly settings: SettingsResponse;
  /** the price table costs are computed with (GET /api/settings/prices; docs/cost.md) */
  prices(): PricesResponse;
  /** Arbor as an MCP server for other agents (/api/mcp): folding and the read-only tools */
  readonly foldingMcp: FoldingMcpHttp;
  /** Creates a session whose tools and file references are confined to the runtime's workspace. */
  createSession(request: CreateSessionRequest): Promise<Session>;
  /** A new session from an exported file: its title, system prompt and messages (at rest). */
  importSession(request: ImportSessionRequest): Promise<Session>;
  /** A workspace file for the chat's file view (confined to the workspace like the file tools). */
  readFile(path: string): Promise<FileViewResult>;
  /** The session's loop tree from the store (empty before the first run). */
  /** the admin loop tree, as the wire shows it (snake_case) */
  loopTree(sessionId: string): Promise<LoopTreeResponse>;
  /** PostgreSQL: several instances share the sessions (docs/decisions/0030); absent on SQLite */
  readonly coordinator: SessionCoordinator | undefined;
  close(): Promise<void>;
}

export async function createRuntime(options: RuntimeOptions = {}): Promise<Runtime> {
  const env = options.env ?? process.env;
  const dataDir = dataDirOf(env);
  // the owner's only (docs/security.md): 0700, and what an older version left there 0600 / 0700
  const secured = securePrivateTree(dataDir);
  // no file tool, file view, file reference or served MCP tool touches it, and no walk (list,
  // search, the codebase index) enters it, even when it lies inside the workspace (npm start)
  refuseInWorkspaces(dataDir);
  // the data dir's prices.json over the shipped list prices (docs/cost.md): read before anything
  // is priced; a bad file refuses the start rather than pricing with zeroes or no prices
  try {
    usePriceOverride(loadPriceOverride(dataDir));
  } catch (err) {
    if (err instanceof PriceFileError) {
      throw new StartRefused(`${err.message} (fix the file or remove it: docs/cost.md)`);
    }
    throw err;
  }
  // made at first start when neither ARBOR_TOKEN nor the token file is there
  const token = installToken(env);
  // the provider keys kept in Settings are known once the database is open
  let keptKeys: () => readonly string[] = () => [];
  const logger =
    options.logger ??
    createRedactingLogger({ env, secrets: [token], liveSecrets: () => keptKeys() });
  // turbopackIgnore: a path known only at run time; without it the build traces the whole repo
  const workspace = resolve(/* turbopackIgnore: true */ env.WORKSPACE_DIR?.trim() || process.cwd());

  // before anything can start a tool: end what a previous server left running
  const processes = new ToolProcesses({ recordDir: join(dataDir, "tool-processes") });
  const leftovers = processes.killRecorded();
  if (leftovers.length > 0) {
    logger.warn("killed tool processes a previous server left running", { groups: leftovers });
  }
  const stopEndingGroups = endGroupsOnShutdown(processes);
  let opened: OpenedStore;
  try {
    opened = options.store
      ? await callersStore(options.store, env, logger)
      : await openStore(env, logger);
  } catch (err) {
    stopEndingGroups();
    throw err;
  }
  const store = opened.store;
  // the people: the owner is made at first start; serving beyond loopback needs a real sign-in
  let people: People;
  try {
    people = await People.open({ database: opened.database, env, installToken: token, logger });
    await people.applyOwnerCredentials(env);
    if (servingBeyondLoopback(env) && !(await people.realSignIn())) {
      throw new StartRefused(
        "serving beyond loopback (HOST or ARBOR_ALLOWED_HOSTS) needs a real sign-in method: give the owner a password or passkey in Settings › Account on a loopback start first, set ARBOR_OWNER_EMAIL and ARBOR_OWNER_PASSWORD, or configure SSO (ARBOR_OIDC_ISSUER, ARBOR_OIDC_CLIENT_ID, ARBOR_OIDC_CLIENT_SECRET)",
      );
    }
  } catch (err) {
    stopEndingGroups();
    await opened.close();
    throw err;
  }
  // keys kept in Settings over the environment's: the model is chosen with them (docs/decisions/0054)
  let providerKeys: ProviderKeys;
  try {
    providerKeys = await ProviderKeys.open({ database: opened.database, dataDir, env, logger });
  } catch (err) {
    stopEndingGroups();
    await opened.close();
    throw err;
  }
  keptKeys = () => providerKeys.secrets();
  const stopKeysPoll = providerKeys.poll();
  // what the system does is audited with no actor (docs/audit.md)
  const auditing = { database: opened.database, logger };
  // trust in the workspace's executable configuration lives in the database: read it before
  // anything of that configuration could start, and poll it (another instance may trust)
  const trustAll = /^(?:1|true|yes)$/i.test(env.ARBOR_TRUST_WORKSPACE_CONFIG?.trim() ?? "");
  const trust = new WorkspaceTrust({ store, workspace, trustAll });
  await trust.refresh();
  const stopTrustPoll = trust.poll(2000, (error) =>
    logger.warn("workspace trust not reread", { error: error.message }),
  );
  // arbor.approvals.waiting: the database's pending calls, recounted every 2 s (decision 0066)
  const stopApprovalsGauge = watchApprovalsWaiting(
    () => store.countPendingApprovals(),
    (error) => logger.warn("waiting approvals not recounted", { error: error.message }),
  );
  if (trustAll) {
    logger.warn(
      "ARBOR_TRUST_WORKSPACE_CONFIG=1: the workspace's mcp_servers.json, .mcp.json, .arbor/openapi.json and settings files' hooks run without asking a person",
      { workspace },
    );
  }
  // reads .arbor/openapi.json now (the specs load in the background): the variables holding its
  // credentials are known before any tool process can start, and are never given to one
  const openapi = new OpenApiManager({
    configPath: openApiConfigPath(workspace),
    workspaceRoot: workspace,
    env,
    logger,
    secrets: () => toolSecrets,
    trust,
    // the token and the database: never read as a spec or a $ref, even inside the workspace
    hiddenPaths: [dataDir],
    onSpecLoaded: ({ name, ...detail }) =>
      void audit(auditing, null, "openapi_config_loaded", `openapi_spec:${name}`, detail),
  });
  await openapi.start();
  // the OpenAPI credentials whatever their variables' names (secretsFromEnv goes by the name)
  const toolSecrets = secretsFromEnv(env, [token, ...openapi.credentials()]);
  // tool output is redacted of the keys kept in Settings too (tools never get them: they are in
  // no environment a tool process starts with)
  const secrets = (): readonly string[] => [...toolSecrets, ...providerKeys.secrets()];
  // spans carry message content only when asked (OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT),
  // and then redacted of the same secrets as tool output (docs/observability-spans.md)
  setTelemetrySecrets(secrets);
  const toolProcessEnv = withoutVariables(env, openapi.credentialVariables());
  const sandbox = await detectSandbox({ env, hiddenPaths: [dataDir] });
  const beyondLoopback = servingBeyondLoopback(env);
  const settings: SettingsResponse = {
    sandbox: sandboxSettings(sandbox, beyondLoopback),
    tool_env: toolEnvNames({ env: toolProcessEnv, workspaceRoot: workspace }),
    default_system_prompt: DEFAULT_BASE_PROMPT,
    default_pipeline: [...DEFAULT_PIPELINE.processors],
  };
  if (sandbox.mode !== "bubblewrap") {
    const { reason, refused, fix } = settings.sandbox;
    logger.warn(
      refused === "all"
        ? "tool processes are refused: no working sandbox"
        : "tool processes run without a sandbox",
      { reason, refused, fix },
    );
  }
  // the workspace's symbol index for the codebase tools: indexed in a worker thread on first use,
  // persisted under the data directory so a restart re-reads only changed files
  const codebase = new CodebaseIndex({
    workspaceRoot: workspace,
    storeDir: join(dataDir, "codebase-index"),
    onError: (err) => logger.warn("codebase index update failed", { error: err.message }),
  });

  // the workspace's Claude Code hooks (.claude/settings.json, .arbor/settings.json): each
  // command runs once a person trusted it, as bash runs a command (sandbox, scrubbed env)
  const commandHooks = new CommandHooks({
    runner: {
      workspace,
      env: toolEnvironment({ env: toolProcessEnv, workspaceRoot: workspace }),
      sandbox,
      exposure: { servingBeyondLoopback: beyondLoopback },
      processes,
    },
    isTrusted: (definition) => trust.isTrusted(definition),
    logger,
  });
  // the servers an admin added in the settings: rows of the database every instance reads (an
  // older version's <data dir>/mcp_servers.json is brought over once); they come last: a file's
  // server keeps its name (docs/decisions/0056)
  const appMcp = await appMcpServers(opened.database, dataDir, toolProcessEnv, logger);
  const mcp = new McpManager({
    sources: [...mcpConfigSources(workspace, env), appMcp.source()],
    trust,
    workspaceRoot: workspace,
    env: toolProcessEnv,
    logger,
    secrets,
    // stdio servers run in bash's sandbox
    sandbox,
    servingBeyondLoopback: beyondLoopback,
    onServerStarted: ({ name, ...detail }) =>
      void audit(auditing, null, "mcp_config_loaded", `mcp_server:${name}`, detail),
  });
  // reads the config only: the servers connect in the background, nothing waits for them
  await mcp.start();
  // another instance added, switched or removed a server: seen within a poll
  const stopAppMcpPoll = followAppMcp(appMcp, mcp, logger);
  mcp.watch().catch((error: unknown) =>
    logger.warn("mcp config not watched", {
      error: error instanceof Error ? error.message : String(error),
    }),
  );
  // skills and sub-agents of the workspace: re-read before each turn (an mtime cache), so a
  // new or edited file applies to the next message
  const skills = new SkillLibrary(defaultSkillDirs(workspace, env.HOME?.trim() || homedir()));
  const agents = new AgentLibrary(defaultAgentDirs(workspace));
  // per-person monthly token budgets (issue #25): checked before each model request of a run
  // someone started, counted after each response (docs/agent-authorization.md)
  // @arbor/db at run time, not bundled (store.ts says why)
  const {
    TokenBudgets: Budgets,
    FoldMemoryTable,
    PrismaMcpSessionStore,
    ExtensionSwitchTable,
  } = await import(/* turbopackIgnore: true */ "@arbor/db");
  // skills and sub-agents an admin switched off in Settings (decision 0057): in the database, read
  // now and every POLL_MS after (another instance may switch), left out of every session's tools
  // and prompt; the listings still show them
  const switches = new ExtensionSwitches({ records: new ExtensionSwitchTable(opened.database) });
  await switches.refresh();
  const stopSwitchesPoll = switches.poll(POLL_MS, (error) =>
    logger.warn("skill and sub-agent switches not reread", { error: error.message }),
  );
  const offeredSkills = new EnabledSkills(skills, switches);
  const offeredAgents = new EnabledAgents(agents, switches);
  const budgets: TokenBudgets = new Budgets(opened.database);
  // other agents fold through Arbor over MCP (/api/mcp) and sessions fold (config.folding): both
  // keep and recall the workspace's fold memories, in the database so every instance has them
  // (issue #26); an older version's file in the data dir is brought over once
  const foldMemories = new FoldMemories({
    records: new FoldMemoryTable(opened.database),
    workspace,
  });
  const memoryFile = new FoldMemoryFile({ dataDir, workspace });
  const imported = await importFoldMemoryFile(memoryFile, foldMemories);
  if (imported > 0) {
    logger.info("fold memories moved into the database", {
      count: imported,
      file: memoryFile.file,
    });
  }
  let idleMs: number;
  try {
    idleMs = idleSessionMs(env);
  } catch (error) {
    throw new StartRefused(error instanceof Error ? error.message : String(error));
  }
  const manager = new SessionManager({
    store,
    tokenBudget: budgets,
    foldMemories: (root) => (root === workspace ? foldMemories : undefined),
    provider: options.provider ?? createDefaultProviderRegistry(),
    // asked at each model request: a key kept in Settings applies to the next one
    model: () => providerKeys.model(),
    // a session switched to another protocol takes that provider's own key from here
    modelEnv: () => providerKeys.modelEnv(),
    logger,
    // ARBOR_TITLES=first_message: no title request to the model after the first answer
    titles: env.ARBOR_TITLES?.trim() === "first_message" ? "first_message" : "model",
    // ARBOR_IDLE_SESSION_SECONDS: how long a session at rest stays in this server's memory
    idleSessionMs: idleMs,
    // optimization's summaries: the session's model (or its optimization.summary_model), unless
    // ARBOR_SUMMARIES=extractive; the offline model always gets extractive summaries
    summaries: env.ARBOR_SUMMARIES?.trim() === "extractive" ? "extractive" : "model",
    // files re-read into a summary are redacted like tool output
    secrets,
    // a session without a workspace of its own (older rows) still gets the runtime's
    tools: (config) => {
      const root = config.workspace ?? workspace;
      const builtins = createDefaultTools({
        workspaceRoot: root,
        env: toolProcessEnv,
        secrets,
        sandbox,
        // rebuilt when the config changes: a policy that lets bash run without a person (auto,
        // or bash on the white list) refuses it when there is no working sandbox
        exposure: {
          servingBeyondLoopback: beyondLoopback,
          personApproves: initialApproval(config.approval_policy, "bash") === "pending",
          // a command a scoped allow rule lets through runs without a person, too
          unattended: (command) =>
            matchingRule(config.allow_rules, "bash", { command }) !== undefined,
        },
        processes,
      });
      // an older session's own workspace has no index here: it keeps the six file tools
      return new ToolRegistry(
        root === workspace ? withCodebaseTools(builtins, { index: codebase, secrets }) : builtins,
        [mcp, openapi],
      );
    },
    mcp,
    commandHooks: (config) =>
      (config.workspace ?? workspace) === workspace ? commandHooks : undefined,
    // an older session with a workspace of its own has none of these
    skills: (config) => ((config.workspace ?? workspace) === workspace ? offeredSkills : undefined),
    agents: (config) => ((config.workspace ?? workspace) === workspace ? offeredAgents : undefined),
    ...(opened.coordinator ? { coordinator: opened.coordinator } : {}),
  });
  // other agents fold through Arbor over MCP (/api/mcp): the workspace's read-only tools, built
  // as a session's are, and the workspace's fold memories
  const servedTools = createServedTools({
    workspaceRoot: workspace,
    env,
    secrets,
    index: codebase,
  });
  // its sessions live in the database: any instance serves any request of one (issue #26)
  const foldingMcp = new FoldingMcpHttp({
    serve: { tools: servedTools, memories: foldMemories },
    store: new PrismaMcpSessionStore(opened.database),
    maxBodyBytes: maxBodyBytes(env),
  });
  // a hook's view: what the trust prompt shows (its command, event, matcher), nothing else
  const hookDefinitions = () =>
    commandHooks.definitions().map(({ kind, file, name, hash, runs }) => ({
      kind,
      file,
      name,
      hash,
      runs: { ...runs, network: sandbox.mode !== "bubblewrap" || sandbox.network },
    }));
  const workspaceTrust = async (): Promise<WorkspaceTrustResponse> => {
    await Promise.all([mcp.reload(), openapi.reviewTrust()]);
    const definitions: TrustDefinitionView[] = [
      ...mcp.definitions(),
      ...openapi.definitions(),
      ...hookDefinitions(),
    ].map((definition) => {
      const record = trust.record(definition);
      return {
        ...definition,
        status: trust.status(definition),
        ...(record?.hash === definition.hash
          ? { trusted_by: record.trusted_by, trusted_at: record.trusted_at }
          : {}),
      };
    });
    return { workspace, trust_all: trust.trustAll, definitions };
  };
  const close = async (): Promise<void> => {
    await foldingMcp.close();
    stopAppMcpPoll();
    await mcp.close();
    stopTrustPoll();
    stopApprovalsGauge();
    stopKeysPoll();
    stopSwitchesPoll();
    stopEndingGroups();
    processes.shutdown();
    await codebase.close();
    await opened.close();
  };
  const described = describeModelConfig(providerKeys.model());
  if (secured.changed > 0) {
    logger.info("data directory made private", { dir: dataDir, changed: secured.changed });
  }
  if (secured.failed.length > 0) {
    logger.warn("data directory: modes not changed", { dir: dataDir, failed: secured.failed });
  }
  logger.info("runtime started", {
    model: described,
    store: opened.location,
    workspace,
    sandbox: settings.sandbox,
  });
  return {
    manager,
    store,
    database: opened.database,
    budgets,
    people,
    logger,
    workspace,
    get model() {
      return describeModelConfig(providerKeys.model());
    },
    providerKeys,
    dataDir,
    mcp,
    appMcp,
    openapi,
    trust,
    workspaceTrust,
    async trustDefinition(key, by) {
      await Promise.all([mcp.reload(), openapi.reviewTrust()]);
      const definition = [
        ...mcp.definitions(),
        ...openapi.definitions(),
        ...hookDefinitions(),
      ].find((d) => d.file === key.file && d.name === key.name);
      if (definition === undefined) return "not_found";
      if (definition.hash !== key.hash) return "changed";
      await trust.trust(definition, by);
      logger.info("workspace definition trusted", {
        file: definition.file,
        name: definition.name,
        hash: definition.hash,
        by,
      });
      // the trust's listeners start the server / read the spec
      return workspaceTrust();
    },
    async revokeTrust(key) {
      if (trust.record(key) === undefined) return "not_found";
      await trust.revoke(key);
      logger.info("workspace definition trust revoked", { file: key.file, name: key.name });
      return workspaceTrust();
    },
    listSkills: () => skillsResponse(skills.load(), switches),
    // an agent named like a tool of the sessions (built-in, codebase, MCP, OpenAPI) is listed as
    // a problem, not as offered: the tool keeps the name (session-extensions.ts toolNameOwner)
    listAgents: () => {
      const tools = new ToolRegistry(
        withCodebaseTools(createDefaultTools({ workspaceRoot: workspace }), { index: codebase }),
        [mcp, openapi],
      );
      return agentsResponse(withoutShadowedAgents(agents.load(), toolNameOwner(tools)), switches);
    },
    switches,
    settings,
    prices: () => effectivePrices(),
    foldingMcp,
    createSession: (request) =>
      // the workspace is the server's to choose: a client-sent one could point the tools at /
      manager.create({
        ...(request.title !== undefined ? { title: request.title } : {}),
        config: { ...request.config, workspace },
      }),
    importSession: (request) => {
      const systemPrompt = request.session?.config?.system_prompt;
      return manager.import({
        title: request.session?.title ?? "Imported session",
        // only the prompt travels: approval policies, model and workspace stay this server's
        config: {
          workspace,
          ...(systemPrompt !== undefined ? { system_prompt: systemPrompt } : {}),
        },
        messages: request.messages,
      });
    },
    readFile: (path) => readWorkspaceFile(workspace, path),
    async loopTree(sessionId) {
      const trees = loopTreesFromRecords(await store.listLoops(sessionId));
      return loopTreeResponse(
        trees.find((tree) => tree.sessionId === sessionId) ?? { sessionId, agentId: "", loops: [] },
        costOfUsage,
      );
    },
    coordinator: opened.coordinator,
    close,
  };
}

// ---- the process-wide instance ------------------------------------------------------------

const GLOBAL_KEY = Symbol.for("arbor.web.runtime");
type Holder = { [GLOBAL_KEY]?: Promise<Runtime> };
const holder = globalThis as Holder;

/**
 * A caller's own session store (tests): people and the rest still need the database, opened in
 * ARBOR_DATA_DIR, or a private temporary directory when the caller names none.
 */
async function callersStore(store: SessionStore, env: Env, logger: Logger): Promise<OpenedStore> {
  const dataDir = env.ARBOR_DATA_DIR?.trim() || mkdtempSync(join(tmpdir(), "arbor-people-"));
  const opened = await openStore({ ...env, ARBOR_DATA_DIR: dataDir }, logger);
  await opened.coordinator?.close();
  return {
    store,
    database: opened.database,
    provider: opened.provider,
    location: "provided by the caller",
    close: () => opened.database.close(),
  };
}

/** A start the configuration does not allow: the server says why and exits (instrumentation.ts). */
export class StartRefused extends Error {
  override readonly name = "StartRefused";
}

/** The runtime, created on first use. A failed start is not cached: the next request retries. */
export function getRuntime(): Promise<Runtime> {
  let runtime = holder[GLOBAL_KEY];
  if (runtime === undefined) {
    runtime = createRuntime();
    holder[GLOBAL_KEY] = runtime;
    runtime.catch(() => {
      if (holder[GLOBAL_KEY] === runtime) delete holder[GLOBAL_KEY];
    });
  }
  return runtime;
}

// proxy.ts reaches the runtime through this (people/admission.ts)
shareRuntimeGetter(getRuntime);

/** The runtime if one was started and did start (never starts one): for the shutdown. */
export async function startedRuntime(): Promise<Runtime | undefined> {
  return holder[GLOBAL_KEY]?.catch(() => undefined);
}

/** Installs a runtime (tests), or forgets the current one (undefined). Closes the one replaced. */
export async function setRuntime(runtime: Runtime | undefined): Promise<void> {
  const previous = holder[GLOBAL_KEY];
  if (runtime === undefined) delete holder[GLOBAL_KEY];
  else holder[GLOBAL_KEY] = Promise.resolve(runtime);
  if (previous !== undefined) {
    const old = await previous.catch(() => undefined);
    if (old !== undefined && old !== runtime) await old.close();
  }
}
