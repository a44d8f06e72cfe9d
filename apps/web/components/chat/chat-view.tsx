"use client";

import type { AddMcpServerRequest, ContextMessage, ContextState } from "@arbor/core/browser";
import {
  AgentList,
  Composer,
  ConnectionIndicator,
  type ConnectionState,
  Drawer,
  FileView,
  formatTokens,
  isRunning,
  McpServerList,
  type ModelOption,
  ModelPicker,
  OpenApiSpecList,
  SandboxBanner,
  SessionList,
  SessionMenu,
  SessionSettings,
  Skeleton,
  SkillList,
  StateLine,
  stateLabel,
  stateLineLabel,
  Toggletip,
  type TranscriptView,
  UsageMeter,
  ViewSwitch,
  WorkspaceTrustList,
  WorkspaceTrustPrompt,
} from "@arbor/ui";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { toast } from "sonner";
import { ApiError, api, errorText } from "@/lib/client/api";
import {
  deleteWithUndo,
  downloadSession,
  useCreateSession,
  useMessageSearch,
  useSessionRowActions,
} from "@/lib/client/session-actions";
import { mergeFolds } from "@/lib/client/session-store";
import type { SubscriptionStatus } from "@/lib/client/sse";
import { throttle } from "@/lib/client/throttle";
import { useLiveSession } from "@/lib/client/use-live-session";
import { useWorkspaceTrust } from "@/lib/client/use-workspace-trust";
import { buttonClass } from "../styles";
import { WorkspaceFolder } from "../workspace-folder";
import { AskWaysPanel } from "./ask-ways-panel";
import { BranchPanel } from "./branch-panel";
import { ChatHeader } from "./chat-header";
import { ParallelColumns } from "./parallel-columns";
import { SessionNotFound } from "./session-not-found";
import { ShareSession } from "./share-session";
import { Transcript } from "./transcript";
import { useChatActions } from "./use-chat-actions";

export interface ChatViewProps {
  sessionId: string;
  highlight?: string | undefined;
  models: readonly ModelOption[];
  /** the context window of the server's default model, for sessions without a model of their own */
  defaultContextWindow: number;
  /** whether this person may change the install's MCP servers (install.configure) */
  canConfigure?: boolean | undefined;
}

const IDLE: ContextState = { type: "Idle" };
const NO_MESSAGES: readonly ContextMessage[] = [];
// The composer filters the list as the user types, so it gets one generous list up front.
const PICKER_FILE_LIMIT = 2_000;

/** Tokens the last request put in the window: its prompt (cached or not) plus its answer. */
function contextTokens(messages: readonly ContextMessage[]): number {
  for (let i = messages.length - 1; i >= 0; i--) {
    const usage = messages[i]?.meta?.usage;
    // an interrupted or failed answer reports no usage; the request before it still counts
    if (usage && usage.totalTokens > 0)
      return usage.input + usage.cacheRead + usage.cacheWrite + usage.output;
  }
  return 0;
}

/** The subscription's status as the header says it; only the browser says it is offline. */
function connectionState(status: SubscriptionStatus, online: boolean): ConnectionState {
  if (!online) return "offline";
  switch (status) {
    case "connecting":
      return "connecting";
    case "open":
      return "connected";
    case "reconnecting":
      return "reconnecting";
    // the browser is online: the app server is what cannot be reached, and the stream keeps
    // trying, so "offline" (the person's own network) would be the wrong word (0058)
    case "offline":
      return "reconnecting";
    case "closed":
      return "offline";
    default:
      return status satisfies never;
  }
}

/** navigator.onLine, kept current. */
function useOnline(): boolean {
  const [online, setOnline] = useState(true);
  useEffect(() => {
    const read = () => setOnline(navigator.onLine);
    read();
    window.addEventListener("online", read);
    window.addEventListener("offline", read);
    return () => {
      window.removeEventListener("online", read);
      window.removeEventListener("offline", read);
    };
  }, []);
  return online;
}

export function ChatView({
  sessionId,
  highlight,
  models,
  defaultContextWindow,
  canConfigure = false,
}: ChatViewProps) {
  const router = useRouter();
  const queryClient = useQueryClient();
  // the conversation as the person had it by default (issue #27): the optimized view can leave
  // their own recent messages out; the model's view is one click away
  const [view, setView] = useState<TranscriptView>("full");
  /** "Ask N ways" was clicked: the composer's text while its candidates are chosen */
  const [asking, setAsking] = useState<{ text: string; clear: () => void } | undefined>();
  const [branchesOpen, setBranchesOpen] = useState(false);
  const [sessionsOpen, setSessionsOpen] = useState(false);
  const [sharing, setSharing] = useState(false);
  // what the caller may do here (docs/sharing.md): a viewer gets no composer and no decisions.
  // Until it is known nothing is hidden; the API refuses what they may not do either way.
  const access = useQuery({
    queryKey: ["access", sessionId],
    queryFn: () => api.getAccess(sessionId),
    retry: false,
  });
  const canSend = access.data?.can_send ?? true;
  const canApprove = access.data?.can_approve ?? true;

  const detail = useQuery({
    queryKey: ["session", sessionId],
    queryFn: () => api.getSession(sessionId),
    // an unknown session is known at once: a 404 is an answer, not a hiccup to retry
    retry: (failures, error) =>
      !(error instanceof ApiError && error.code === "not_found") && failures < 1,
  });
  const branchId = detail.data?.active_branch_id;
  const shownQuery = useQuery({
    queryKey: ["messages", sessionId, branchId, view],
    queryFn: () => api.getMessages(sessionId, { branch: branchId, view }),
    enabled: branchId !== undefined,
    placeholderData: (previous) => previous,
  });
  const fullQuery = useQuery({
    queryKey: ["messages", sessionId, branchId, "full"],
    queryFn: () => api.getMessages(sessionId, { branch: branchId, view: "full" }),
    enabled: branchId !== undefined,
    placeholderData: (previous) => previous,
  });
  // what the model sees: the full history's dividers show the summaries it reads
  const modelQuery = useQuery({
    queryKey: ["messages", sessionId, branchId, "optimized"],
    queryFn: () => api.getMessages(sessionId, { branch: branchId, view: "optimized" }),
    enabled: branchId !== undefined,
    placeholderData: (previous) => previous,
  });
  // context folding: each fold's card, with its steps, under its `branch` call
  const foldsQuery = useQuery({
    queryKey: ["folds", sessionId],
    queryFn: () => api.folds(sessionId),
    placeholderData: (previous) => previous,
  });
  const sessions = useQuery({ queryKey: ["sessions"], queryFn: () => api.listSessions() });
  // fixed for the server's lifetime
  const settings = useQuery({
    queryKey: ["settings"],
    queryFn: () => api.getSettings(),
    staleTime: Number.POSITIVE_INFINITY,
  });
  // the caller's monthly token budget (issue #25): read again after each run (below)
  const myUsage = useQuery({ queryKey: ["me-usage"], queryFn: () => api.myUsage() });
  const mcpServers = useQuery({
    queryKey: ["mcp-servers"],
    queryFn: () => api.listMcpServers(),
    // servers connect in the background: look again while one is still connecting
    refetchInterval: (query) =>
      query.state.data?.servers.some((s) => s.status === "connecting") ? 2_000 : false,
  });
  const openApiSpecs = useQuery({
    queryKey: ["openapi-specs"],
    queryFn: () => api.listOpenApiSpecs(),
    // specs load in the background: look again while one is still loading
    refetchInterval: (query) =>
      query.state.data?.specs.some((s) => s.status === "loading") ? 2_000 : false,
  });
  // read afresh each time the settings open (onOpen below): files may have been added meanwhile
  const skills = useQuery({ queryKey: ["skills"], queryFn: () => api.listSkills() });
  const agents = useQuery({ queryKey: ["agents"], queryFn: () => api.listAgents() });
  const mcpResources = useMemo(
    () =>
      (mcpServers.data?.servers ?? [])
        .filter((s) => s.status === "connected")
        .flatMap((s) => s.resources.map((r) => ({ server: s.name, uri: r.uri, name: r.name }))),
    [mcpServers.data],
  );
  const mcpResourceTemplates = useMemo(
    () =>
      (mcpServers.data?.servers ?? [])
        .filter((s) => s.status === "connected")
        .flatMap((s) =>
          s.resource_templates.map((t) => ({
            server: s.name,
            uriTemplate: t.uri_template,
            name: t.name,
          })),
        ),
    [mcpServers.data],
  );
  const mcpPrompts = useMemo(
    () =>
      (mcpServers.data?.servers ?? [])
        .filter((s) => s.status === "connected")
        .flatMap((s) => s.prompts.map((p) => ({ server: s.name, ...p }))),
    [mcpServers.data],
  );
  const workspaceTrust = useWorkspaceTrust();
  const [reconnecting, setReconnecting] = useState<ReadonlySet<string>>(() => new Set());
  const reconnectMcp = useCallback(
    async (name: string) => {
      setReconnecting((names) => new Set([...names, name]));
      try {
        await api.reconnectMcpServer(name);
      } catch {
        // the list below shows the server's state either way
      } finally {
        setReconnecting((names) => new Set([...names].filter((n) => n !== name)));
        await queryClient.invalidateQueries({ queryKey: ["mcp-servers"] });
      }
    },
    [queryClient],
  );
  // servers added in the settings (admins): the list is read again after each change
  const addMcp = useCallback(
    async (server: AddMcpServerRequest): Promise<string | undefined> => {
      try {
        await api.addMcpServer(server);
        return undefined;
      } catch (error) {
        return errorText(error);
      } finally {
        await queryClient.invalidateQueries({ queryKey: ["mcp-servers"] });
      }
    },
    [queryClient],
  );
  const changeMcp = useCallback(
    async (change: () => Promise<unknown>, failure: string) => {
      try {
        await change();
      } catch (error) {
        toast.error(failure, { description: errorText(error) });
      } finally {
        await queryClient.invalidateQueries({ queryKey: ["mcp-servers"] });
      }
    },
    [queryClient],
  );
  // a skill or sub-agent switched for every session (admins; decision 0057)
  const switchExtension = useCallback(
    async (change: () => Promise<unknown>, queryKey: string[], failure: string) => {
      try {
        await change();
      } catch (error) {
        toast.error(failure, { description: errorText(error) });
      } finally {
        await queryClient.invalidateQueries({ queryKey });
      }
    },
    [queryClient],
  );
  // read afresh each time the settings open: the server re-reads the files (mtime cache)
  const instructions = useQuery({
    queryKey: ["instructions", sessionId],
    queryFn: () => api.instructions(sessionId),
  });
  const files = useQuery({
    queryKey: ["workspace-files", sessionId],
    queryFn: async () => (await api.listFiles(sessionId, { limit: PICKER_FILE_LIMIT })).files,
    staleTime: 30_000,
    // the workspace's files are for those who may send (route-actions.ts)
    enabled: canSend,
  });

  const [optimizing, setOptimizing] = useState(false);
  const optimizeNow = useCallback(async () => {
    setOptimizing(true);
    try {
      const result = await api.optimize(sessionId);
      if (result.changed && result.optimization) {
        const { tokens_before, tokens_after } = result.optimization;
        toast.success(
          `History optimized: ${formatTokens(tokens_before)} → ${formatTokens(tokens_after)} tokens`,
        );
      } else {
        toast("Nothing to optimize: the history is within the target already");
      }
      await queryClient.invalidateQueries({ queryKey: ["messages", sessionId] });
    } catch (error) {
      toast.error("Optimizing failed", {
        id: "optimize-now",
        description: errorText(error),
        action: { label: "Retry", onClick: () => void optimizeAgain.current() },
      });
    } finally {
      setOptimizing(false);
    }
  }, [queryClient, sessionId]);
  // the toast's Retry calls the latest optimizeNow (a closure made before it would be stale)
  const optimizeAgain = useRef(optimizeNow);
  optimizeAgain.current = optimizeNow;
  const refreshSession = useCallback(async () => {
    await Promise.all([
      queryClient.invalidateQueries({ queryKey: ["session", sessionId] }),
      queryClient.invalidateQueries({ queryKey: ["sessions"] }),
    ]);
  }, [queryClient, sessionId]);
  const refreshMessages = useCallback(
    () =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: ["messages", sessionId] }),
        queryClient.invalidateQueries({ queryKey: ["folds", sessionId] }),
      ]).then(() => undefined),
    [queryClient, sessionId],
  );
  // Events come by the hundred; one refetch per burst is enough.
  const effects = useMemo(
    () => ({
      onMessagesChanged: throttle(() => void refreshMessages(), 150),
      onSessionChanged: throttle(() => {
        void refreshSession();
        void queryClient.invalidateQueries({ queryKey: ["workspace-files", sessionId] });
      }, 150),
    }),
    [refreshMessages, refreshSession, queryClient, sessionId],
  );
  const live = useLiveSession(sessionId, effects, detail.data?.resume_from_sequence);
  const liveFolds = live.snapshot.folds;
  const folds = useMemo(
    () => mergeFolds(foldsQuery.data?.folds ?? [], liveFolds),
    [foldsQuery.data, liveFolds],
  );
  const online = useOnline();
  const search = useMessageSearch();
  const create = useCreateSession();
  const leaveIfDeleted = useCallback(
    (id: string) => {
      if (id === sessionId) router.push("/");
    },
    [router, sessionId],
  );
  const rowActions = useSessionRowActions({ onDeleted: leaveIfDeleted });
  const openMessage = (id: string, messageId: string) => {
    setSessionsOpen(false);
    router.push(`/sessions/${encodeURIComponent(id)}?message=${encodeURIComponent(messageId)}`);
  };

  const shown = shownQuery.data?.messages ?? NO_MESSAGES;
  const full = fullQuery.data?.messages ?? NO_MESSAGES;
  const queuedMessages = fullQuery.data?.queued ?? NO_MESSAGES;
  // shown in the composer until delivered: the delivery's refetch moves each into the transcript
  const queued = useMemo(
    () =>
      queuedMessages.flatMap((m) =>
        m.body.message_type === "text"
          ? [{ id: m.id, text: m.body.text, delivery: m.meta?.delivery ?? ("steer" as const) }]
          : [],
      ),
    [queuedMessages],
  );
  useEffect(() => {
    live.store.forgetAnnounced(new Set([...shown, ...full].map((m) => m.id)));
  }, [shown, full, live.store]);

  // the file view, opened from a codebase tool result's file:line
  const [opened, setOpened] = useState<{ path: string; line: number } | undefined>();
  const openFile = useCallback((path: string, line: number) => setOpened({ path, line }), []);
  const openedFile = useQuery({
    queryKey: ["workspace-file", sessionId, opened?.path],
    queryFn: () => api.readFile(sessionId, opened?.path ?? ""),
    enabled: opened !== undefined,
    retry: false,
  });

  const actions = useChatActions({
    sessionId,
    live,
    refreshSession,
    refreshMessages,
    openFile,
    // held while the stream is down or coming back; a page still connecting sends at once
    connected: !["offline", "reconnecting"].includes(connectionState(live.connection, online)),
  });

  // a viewer's cards offer no actions; a collaborator whom `approvers: owner` leaves out, no decisions
  const callbacks = useMemo(
    () => ({
      ...actions.callbacks,
      ...(canApprove
        ? {}
        : { onToolDecisions: undefined, onNestedDecisions: undefined, onApprovePlan: undefined }),
      ...(canSend
        ? {}
        : {
            onFork: undefined,
            onEditResend: undefined,
            onAnswer: undefined,
            onRegenerate: undefined,
            onOpenFile: undefined,
          }),
    }),
    [actions.callbacks, canApprove, canSend],
  );

  const outgoingSeen = useRef(new Map<string, ReadonlySet<string>>());

  const title = detail.data?.title;
  useEffect(() => {
    document.title = title ? `${title} · Arbor` : "Arbor";
  }, [title]);

  // a run ended: what it used counts against the budget the meter shows
  const runningNow = isRunning(live.snapshot.state ?? detail.data?.state ?? IDLE);
  useEffect(() => {
    if (!runningNow) {
      void queryClient.invalidateQueries({ queryKey: ["me-usage"] });
      // and what it cost, which the meter and the session list show
      void queryClient.invalidateQueries({ queryKey: ["sessions"] });
    }
  }, [runningNow, queryClient]);

  if (detail.error instanceof ApiError && detail.error.code === "not_found") {
    return <SessionNotFound />;
  }

  const state = live.snapshot.state ?? detail.data?.state ?? IDLE;
  const knownIds = new Set(shown.map((m) => m.id));
  // the stored messages when each outgoing text was first shown: a user's text stored since then
  // with the same words is that text, even before the POST's own stream said so (a slow network
  // brings the live stream's events first), so it is not shown twice
  const outgoingKeys = new Set(actions.outgoing.map((m) => m.key));
  for (const key of outgoingSeen.current.keys()) {
    if (!outgoingKeys.has(key)) outgoingSeen.current.delete(key);
  }
  for (const m of actions.outgoing) {
    if (!outgoingSeen.current.has(m.key)) outgoingSeen.current.set(m.key, knownIds);
  }
  const outgoing = actions.outgoing.filter((m) => {
    if (m.acceptedId !== undefined) return !knownIds.has(m.acceptedId);
    const before = outgoingSeen.current.get(m.key) ?? knownIds;
    return !(
      m.status === "sending" &&
      shown.some(
        (s) =>
          s.role === "user" &&
          !before.has(s.id) &&
          s.body.message_type === "text" &&
          s.body.text === m.text,
      )
    );
  });
  // From the click until the first event, the session still rests; the line says what the cards
  // show (a message on its way), not "Ready".
  const sending = outgoing.some((m) => m.status === "sending");
  const shownState: ContextState =
    sending && !isRunning(state) ? { type: "ProcessingUserMessage" } : state;
  const autoLoop = live.snapshot.autoLoop;
  const config = detail.data?.config;
  const mode = config?.agent_mode ?? "act";
  const limit = config?.model?.context_window ?? defaultContextWindow;
  // what the next request would use, as the server counts it (active branch only)
  const usage = shownQuery.data?.context_usage;
  // One place per error (issue #27): a run that failed is said in the bar above the composer,
  // with Retry; the banner holds the rest (a refused request, an action that failed).
  const failure = state.type === "Failed" ? state : undefined;
  const liveError = live.snapshot.error?.message;
  const error =
    actions.actionError ??
    (failure !== undefined && liveError === failure.error ? undefined : liveError);
  const connection = connectionState(live.connection, online);
  const connectionDown =
    connection === "offline" || connection === "reconnecting" ? connection : undefined;
  // what a branch without its own prompt uses
  const basePrompt = config?.system_prompt?.trim() || settings.data?.default_system_prompt || "";
  const loading = detail.isPending || (branchId !== undefined && shownQuery.isPending);

  return (
    <div className="flex min-h-dvh flex-col">
      <ChatHeader
        title={title ?? "Loading…"}
        branchesOpen={branchesOpen}
        // switching, merging and editing branches are session.send: a viewer reads the branch shown
        onToggleBranches={canSend ? () => setBranchesOpen((open) => !open) : undefined}
        branchCount={detail.data?.branches.length ?? 1}
        onOpenSessions={() => setSessionsOpen(true)}
        activeBranchName={detail.data?.branches.find((b) => b.id === branchId)?.name}
        // the phone's header summary says what the state line says (offline: not "Ready")
        statusSummary={stateLineLabel(shownState, connectionDown)}
        conversationId="conversation"
        menu={
          detail.data ? (
            <SessionMenu
              title={detail.data.title}
              onRename={(next) => {
                api.renameSession(sessionId, next).then(
                  () => void refreshSession(),
                  (error: unknown) =>
                    toast.error("Renaming failed", { description: errorText(error) }),
                );
              }}
              onExport={(format) =>
                downloadSession(format, detail.data?.title ?? "session", detail.data, full)
              }
              onDelete={() => {
                deleteWithUndo(queryClient, sessionId, detail.data?.title ?? "session");
                router.push("/");
              }}
              onShare={access.data?.can_share ? () => setSharing(true) : undefined}
            />
          ) : null
        }
        model={
          config ? (
            <ModelPicker
              models={models}
              value={config.model}
              onChange={(model) => actions.saveSettings({ model })}
            />
          ) : null
        }
        settings={
          config ? (
            <SessionSettings
              config={config}
              models={models}
              onSave={actions.saveSettings}
              {...(settings.data ? { sandbox: settings.data.sandbox } : {})}
              workspaceTrust={
                <WorkspaceTrustList
                  definitions={workspaceTrust.data?.definitions ?? []}
                  // trusting is install.configure's: a member sees the list, no buttons
                  onTrust={canConfigure ? workspaceTrust.trust : undefined}
                  onRevoke={canConfigure ? workspaceTrust.revoke : undefined}
                  busy={workspaceTrust.busy}
                />
              }
              mcpServers={
                <McpServerList
                  servers={mcpServers.data?.servers ?? []}
                  // a member is answered 403 (install.configure): no button to press
                  onReconnect={canConfigure ? (name) => void reconnectMcp(name) : undefined}
                  reconnecting={reconnecting}
                  onAdd={canConfigure ? addMcp : undefined}
                  onSetEnabled={
                    canConfigure
                      ? (name, enabled) =>
                          void changeMcp(
                            () => api.setMcpServerEnabled(name, enabled),
                            `Could not turn ${name} ${enabled ? "on" : "off"}`,
                          )
                      : undefined
                  }
                  onRemove={
                    canConfigure
                      ? (name) =>
                          void changeMcp(
                            () => api.removeMcpServer(name),
                            `Could not remove ${name}`,
                          )
                      : undefined
                  }
                />
              }
              openApiSpecs={<OpenApiSpecList specs={openApiSpecs.data?.specs ?? []} />}
              skills={
                <SkillList
                  skills={skills.data}
                  onSetEnabled={
                    canConfigure
                      ? (name, enabled) =>
                          void switchExtension(
                            () => api.setSkillEnabled(name, enabled),
                            ["skills"],
                            `Could not switch the skill ${name} ${enabled ? "on" : "off"}`,
                          )
                      : undefined
                  }
                />
              }
              agents={
                <AgentList
                  agents={agents.data}
                  onSetEnabled={
                    canConfigure
                      ? (name, enabled) =>
                          void switchExtension(
                            () => api.setAgentEnabled(name, enabled),
                            ["agents"],
                            `Could not switch the sub-agent ${name} ${enabled ? "on" : "off"}`,
                          )
                      : undefined
                  }
                />
              }
              instructions={instructions.data}
              onOpen={() => {
                void instructions.refetch();
                void skills.refetch();
                void agents.refetch();
              }}
            />
          ) : null
        }
      >
        <StateLine
          state={shownState}
          {...(autoLoop ? { context: stateLabel({ type: "ToolAutoLoop", ...autoLoop }) } : {})}
          {...(connectionDown !== undefined ? { connection: connectionDown } : {})}
          className="min-w-0 flex-1"
        />
        <ConnectionIndicator state={connection} quiet={connectionDown !== undefined} />
        {/* at phone width the bar alone; its numbers stay in the meter's aria-valuetext */}
        <div className="max-sm:[&_span]:hidden">
          <UsageMeter
            // the server's count of the next request first: it follows an optimization at once,
            // while the last answer's reported usage is from before it
            used={usage?.total || contextTokens(shown)}
            limit={limit}
            {...(usage ? { fixed: { systemPrompt: usage.system_prompt, tools: usage.tools } } : {})}
            budget={myUsage.data}
            // what the session spent so far: its summary in the session list's answer
            cost={sessions.data?.find((s) => s.id === sessionId)?.usage}
          />
        </div>
        <span className="inline-flex items-center">
          <button
            type="button"
            className={buttonClass.ghost}
            disabled={optimizing || state.type !== "Idle" || !canSend}
            onClick={() => void optimizeNow()}
          >
            Optimize now
          </button>
          <Toggletip label="Optimize now">
            Summarizes and shortens older history now, down to the optimization target, as the
            session does by itself when the conversation nears the context window. Your messages are
            kept: &ldquo;Full history&rdquo; shows them as written.
          </Toggletip>
        </span>
      </ChatHeader>

      <Drawer title="Sessions" open={sessionsOpen} onOpenChange={setSessionsOpen}>
        <SessionList
          sessions={sessions.data ?? []}
          activeSessionId={sessionId}
          onSelect={(id) => {
            setSessionsOpen(false);
            router.push(`/sessions/${encodeURIComponent(id)}`);
          }}
          onQueryChange={search.onQueryChange}
          messageHits={search.hits}
          onOpenMessage={openMessage}
          onNew={() => {
            setSessionsOpen(false);
            create.mutate();
          }}
          creating={create.isPending}
          rowActions={rowActions}
        />
      </Drawer>

      <div className="mx-auto flex w-full max-w-7xl flex-1 gap-4 px-3 sm:px-4">
        <aside
          aria-label="Other sessions"
          className="sticky top-20 hidden max-h-[calc(100dvh-6rem)] w-64 shrink-0 self-start overflow-y-auto py-4 xl:block"
        >
          <SessionList
            sessions={sessions.data ?? []}
            activeSessionId={sessionId}
            onSelect={(id) => router.push(`/sessions/${encodeURIComponent(id)}`)}
            onQueryChange={search.onQueryChange}
            messageHits={search.hits}
            onOpenMessage={openMessage}
            onNew={() => create.mutate()}
            creating={create.isPending}
            rowActions={rowActions}
          />
        </aside>

        {/* the skip link's target (ChatHeader): focusable, with no outline of its own */}
        <main
          id="conversation"
          tabIndex={-1}
          className="mx-auto flex w-full min-w-0 max-w-3xl flex-1 scroll-mt-24 flex-col gap-3 py-4 outline-none"
        >
          {workspaceTrust.data && !workspaceTrust.dismissed && (
            <WorkspaceTrustPrompt
              definitions={workspaceTrust.data.definitions}
              trustAll={workspaceTrust.data.trust_all}
              onTrust={canConfigure ? workspaceTrust.trust : undefined}
              busy={workspaceTrust.busy}
              onDismiss={workspaceTrust.dismiss}
            />
          )}
          {canSend && branchesOpen && detail.data && (
            // below 1024 px: a full-height sheet over the page, in view wherever it is scrolled
            <div
              role="dialog"
              aria-modal="true"
              aria-label="Branches"
              className="fixed inset-0 z-30 flex flex-col overflow-y-auto bg-zinc-50/95 p-2 backdrop-blur sm:p-4 lg:hidden dark:bg-zinc-950/95"
              onKeyDown={(event) => {
                if (event.key === "Escape") setBranchesOpen(false);
              }}
            >
              <BranchPanel
                sheet
                sessionId={sessionId}
                detail={detail.data}
                onCheckout={actions.checkout}
                onMerge={actions.merge}
                onResolve={actions.resolve}
                onUpdateBranch={actions.updateBranch}
                onDeleteBranch={actions.deleteBranch}
                basePrompt={basePrompt}
                defaultPipeline={settings.data?.default_pipeline ?? []}
                onClose={() => setBranchesOpen(false)}
              />
            </div>
          )}
          {/* while tools would run unconfined, or are refused for want of a sandbox */}
          <SandboxBanner sandbox={settings.data?.sandbox} />
          {error && (
            <div
              role="alert"
              className="flex items-start gap-2 rounded-lg border border-red-300 bg-red-50 px-3 py-2 text-sm text-red-800 dark:border-red-900 dark:bg-red-950/60 dark:text-red-200"
            >
              <span className="flex-1 break-words">{error}</span>
              {actions.actionError !== undefined && actions.retryAction !== undefined && (
                <button
                  type="button"
                  className={buttonClass.secondary}
                  onClick={actions.retryAction}
                >
                  Retry
                </button>
              )}
              <button
                type="button"
                aria-label="Dismiss error"
                className="rounded px-1 hover:bg-red-100 dark:hover:bg-red-900"
                onClick={actions.clearError}
              >
                ✕
              </button>
            </div>
          )}
          {/* only when there is nothing to show: a refetch that fails while offline keeps what
              was loaded, and the header says the connection is down */}
          {((detail.isError && detail.data === undefined) ||
            (shownQuery.isError && shownQuery.data === undefined)) &&
            !error && (
              <p role="alert" className="text-sm text-red-700 dark:text-red-400">
                Could not load the session: {errorText(detail.error ?? shownQuery.error)}
              </p>
            )}
          <div className="flex items-center justify-between gap-2">
            {/* what the agent works on: its file tools and commands stay in this folder */}
            {config?.workspace ? <WorkspaceFolder path={config.workspace} compact /> : <span />}
            <ViewSwitch value={view} onChange={setView} />
          </div>
          {loading ? (
            <Skeleton label="Loading the conversation" rows={4} />
          ) : shown.length === 0 &&
            live.snapshot.announced.length === 0 &&
            outgoing.length === 0 ? (
            <section
              aria-label="Empty session"
              className="rounded-xl border border-dashed border-zinc-300 p-6 text-sm text-zinc-600 dark:border-zinc-700 dark:text-zinc-300"
            >
              <p className="font-medium text-zinc-900 dark:text-zinc-100">
                Ask the agent something to begin.
              </p>
              <p className="mt-1">
                Try <em>“list the files”</em>. Attach a workspace file with the paperclip, switch
                between Plan and Act below, and press <kbd className="font-mono">?</kbd> for
                shortcuts.
              </p>
            </section>
          ) : (
            <Transcript
              sessionId={sessionId}
              messages={shown}
              fullMessages={full}
              modelMessages={modelQuery.data?.messages ?? NO_MESSAGES}
              optimizations={shownQuery.data?.optimizations ?? []}
              view={view}
              streams={live.snapshot.streams}
              announced={live.snapshot.announced}
              toolProgress={live.snapshot.toolProgress}
              folds={folds}
              subAgents={live.snapshot.subAgents}
              activeBranchId={branchId}
              branches={detail.data?.branches}
              onCheckout={isRunning(state) || !canSend ? undefined : actions.checkout}
              state={state}
              agentMode={mode}
              highlight={highlight}
              callbacks={callbacks}
              outgoing={outgoing}
              onRetryOutgoing={actions.retryOutgoing}
              onDiscardOutgoing={actions.discardOutgoing}
            />
          )}
          {live.snapshot.parallel !== undefined && (
            <ParallelColumns
              group={live.snapshot.parallel}
              onDecide={canApprove ? actions.callbacks.onToolDecisions : undefined}
              onDismiss={() => live.store.dismissParallel()}
              onChoose={
                canSend
                  ? (candidate) =>
                      live.snapshot.parallel &&
                      actions.chooseAnswer(live.snapshot.parallel.group_id, candidate)
                  : undefined
              }
            />
          )}
        </main>

        {canSend && branchesOpen && detail.data && (
          <div className="sticky top-20 hidden w-[26rem] shrink-0 self-start py-4 lg:block">
            <BranchPanel
              sessionId={sessionId}
              detail={detail.data}
              onCheckout={actions.checkout}
              onMerge={actions.merge}
              onResolve={actions.resolve}
              onUpdateBranch={actions.updateBranch}
              onDeleteBranch={actions.deleteBranch}
              basePrompt={basePrompt}
              defaultPipeline={settings.data?.default_pipeline ?? []}
              onClose={() => setBranchesOpen(false)}
            />
          </div>
        )}
      </div>

      <footer className="sticky bottom-0 z-10 border-t border-zinc-200 bg-zinc-50/95 backdrop-blur dark:border-zinc-800 dark:bg-zinc-950/95">
        <div className="mx-auto flex w-full max-w-3xl flex-col gap-2 px-3 py-2 max-sm:py-1.5 sm:px-4">
          {canSend && state.type === "Paused" && (
            <div className="flex flex-wrap items-center gap-2 text-sm text-zinc-700 dark:text-zinc-300">
              <span>
                {state.reason === "auto_loop_limit"
                  ? "Paused at the auto-loop limit."
                  : "Paused after your interrupt."}
              </span>
              <button type="button" className={buttonClass.primary} onClick={actions.resume}>
                Resume
              </button>
            </div>
          )}
          {failure !== undefined && (
            <div
              role="alert"
              className="flex flex-wrap items-center gap-2 text-sm text-red-800 dark:text-red-300"
            >
              <span className="min-w-0 flex-1 break-words">The run stopped: {failure.error}</span>
              {canSend && failure.recoverable && (
                // sends the failed request again (the run resumes where it stopped)
                <button type="button" className={buttonClass.primary} onClick={actions.resume}>
                  Retry
                </button>
              )}
            </div>
          )}
          {asking !== undefined && (
            <AskWaysPanel
              text={asking.text}
              models={models}
              onCancel={() => setAsking(undefined)}
              onAsk={(candidates, strategy) => {
                asking.clear();
                setAsking(undefined);
                actions.askWays(asking.text, { candidates, judge: { strategy } });
              }}
            />
          )}
          {!canSend && (
            <p
              role="note"
              className="py-1 text-sm text-zinc-600 dark:text-zinc-300"
              data-testid="read-only-note"
            >
              This session was shared with you to read: you cannot send or approve in it.
            </p>
          )}
          {canSend && (
            <Composer
              onSend={actions.send}
              onAskWays={(text, clear) => setAsking({ text, clear })}
              running={isRunning(state)}
              onStop={actions.stop}
              mode={mode}
              onModeChange={actions.setMode}
              workspaceFiles={files.data ?? []}
              mcpResources={mcpResources}
              mcpResourceTemplates={mcpResourceTemplates}
              mcpPrompts={mcpPrompts}
              onUsePrompt={actions.sendPrompt}
              queued={queued}
              disabled={detail.data === undefined}
              contextRoom={{ used: contextTokens(shown), limit }}
            />
          )}
        </div>
      </footer>
      {detail.data && branchId !== undefined && (
        <ShareSession
          sessionId={sessionId}
          branchId={branchId}
          branchName={detail.data.branches.find((b) => b.id === branchId)?.name ?? "this branch"}
          open={sharing}
          onOpenChange={setSharing}
        />
      )}
      <FileView
        target={opened}
        file={openedFile.data}
        error={openedFile.error ? errorText(openedFile.error) : undefined}
        onClose={() => setOpened(undefined)}
      />
    </div>
  );
}
