"use client";

import type {
  BodyOf,
  Branch,
  ContextMessage,
  ContextState,
  FoldView,
  OptimizationView,
} from "@arbor/core/browser";
import {
  type BranchNotice,
  branchNotices,
  FoldCard,
  isRunning,
  type MessageCallbacks,
  MessageCard,
  messageVersions,
  OptimizationDivider,
  OutgoingCard,
  type OutgoingMessage,
  type SubAgentViews,
  type ToolResults,
  type VersionSwitch,
  withoutCardCalls,
} from "@arbor/ui";
import { Fragment, memo, type ReactNode, useEffect, useMemo, useRef } from "react";
import type { AnnouncedMessage, StreamBuffer } from "@/lib/client/session-store";
import { BranchIcon } from "../icons";

export interface TranscriptProps {
  sessionId: string;
  /** the messages of the chosen view (optimized or full) */
  messages: readonly ContextMessage[];
  /** the full history of the branch, to expand an optimization into its originals */
  fullMessages: readonly ContextMessage[];
  /** what the model sees (the optimized view): the summaries the full history's dividers show */
  modelMessages?: readonly ContextMessage[];
  optimizations: readonly OptimizationView[];
  view: "optimized" | "full";
  streams: Readonly<Record<string, StreamBuffer>>;
  /** sub-agent calls' child loops seen live (subagent_update), by tool call id */
  subAgents?: SubAgentViews;
  announced: readonly AnnouncedMessage[];
  /** the latest progress of running tool calls, by tool call id (tool_progress events) */
  toolProgress?: Readonly<Record<string, string>>;
  /** the session's folds: each depth-1 fold's card goes under its `branch` call */
  folds?: readonly FoldView[];
  activeBranchId: string | undefined;
  /** every branch of the session: a message with versions on others gets a `‹ 1/2 ›` switcher */
  branches?: readonly Branch[];
  /** checks out the branch of a chosen version */
  onCheckout?: (branchId: string) => void;
  state: ContextState;
  agentMode: "plan" | "act";
  /** the message a link pointed at (admin viewer → ?message=ID) */
  highlight?: string | undefined;
  /** the cards' actions; an absent one is not offered (a viewer, a read-only link's page) */
  callbacks: MessageCallbacks;
  /** the user's texts not stored yet: shown after the stored messages at once */
  outgoing?: readonly OutgoingMessage[];
  onRetryOutgoing?: (key: string) => void;
  onDiscardOutgoing?: (key: string) => void;
}

/**
 * The progress of `message`'s calls: the whole record when one of its calls has progress, else
 * undefined, so only the running request's card renders again on a progress event.
 */
function progressOf(
  message: ContextMessage,
  progress: Readonly<Record<string, string>> | undefined,
): Readonly<Record<string, string>> | undefined {
  if (progress === undefined || message.body.message_type !== "tool_request") return undefined;
  return message.body.calls.some((c) => progress[c.id] !== undefined) ? progress : undefined;
}

/** A stand-in card for a message the events announced before the list was refetched. */
function placeholder(sessionId: string, announced: AnnouncedMessage): ContextMessage {
  return {
    id: announced.message_id,
    session_id: sessionId,
    role: announced.role,
    body: { message_type: "text", text: "" },
    status: "streaming",
    created_at: new Date().toISOString(),
  };
}

/**
 * One card per tool call: each tool request gets the results of its calls, and a result whose
 * request is shown is not shown again on its own. Results stay stable objects between renders
 * (same messages → same maps), so the memoized cards do not re-render for nothing.
 */
/**
 * The live sub-agent views of a tool request's calls: undefined for other messages, so only the
 * card whose sub-agent changed renders again (the memoized cards compare by identity).
 */
const subAgentCache = new WeakMap<SubAgentViews, Map<string, SubAgentViews>>();
function subAgentsOf(message: ContextMessage, all: SubAgentViews): SubAgentViews | undefined {
  if (message.body.message_type !== "tool_request") return undefined;
  const ids = message.body.calls.map((c) => c.id).filter((id) => all[id] !== undefined);
  if (ids.length === 0) return undefined;
  let byMessage = subAgentCache.get(all);
  if (byMessage === undefined) {
    byMessage = new Map();
    subAgentCache.set(all, byMessage);
  }
  let views = byMessage.get(message.id);
  if (views === undefined) {
    views = Object.fromEntries(
      ids.map((id) => [id, all[id]]).filter(([, v]) => v),
    ) as SubAgentViews;
    byMessage.set(message.id, views);
  }
  return views;
}

function pairToolResults(messages: readonly ContextMessage[]): {
  byRequest: Map<string, ToolResults>;
  folded: Set<string>;
} {
  const requestOf = new Map<string, string>();
  for (const m of messages) {
    if (m.body.message_type === "tool_request")
      for (const call of m.body.calls) requestOf.set(call.id, m.id);
  }
  const byRequest = new Map<string, Map<string, BodyOf<"tool_result">>>();
  const folded = new Set<string>();
  for (const m of messages) {
    if (m.body.message_type !== "tool_result") continue;
    const requestId = requestOf.get(m.body.tool_call_id);
    if (requestId === undefined) continue;
    const results = byRequest.get(requestId) ?? new Map();
    results.set(m.body.tool_call_id, m.body);
    byRequest.set(requestId, results);
    folded.add(m.id);
  }
  return { byRequest, folded };
}

/**
 * Over the full history: each optimization whose summaries the model still reads (and the latest)
 * goes after the last message it replaced or dropped, where the model's view now starts.
 */
function fullHistoryPlacement(
  messages: readonly ContextMessage[],
  modelMessages: readonly ContextMessage[],
  optimizations: readonly OptimizationView[],
): Map<string, OptimizationView[]> {
  const index = new Map(messages.map((m, i) => [m.id, i]));
  const read = new Set(modelMessages.map((m) => m.id));
  const after = new Map<string, OptimizationView[]>();
  optimizations.forEach((optimization, position) => {
    const current =
      position === optimizations.length - 1 ||
      optimization.summaries.some((s) => read.has(s.summary_message_id));
    if (!current) return;
    const cut = [...optimization.summaries.flatMap((s) => s.replaces), ...optimization.dropped]
      .map((id) => index.get(id))
      .filter((i) => i !== undefined)
      .reduce((last, i) => Math.max(last, i), -1);
    const anchor = messages[cut]?.id;
    if (anchor !== undefined) after.set(anchor, [...(after.get(anchor) ?? []), optimization]);
  });
  return after;
}

/** Where each optimization's divider goes: before its first summary in the view, else on top. */
function dividerPlacement(
  messages: readonly ContextMessage[],
  optimizations: readonly OptimizationView[],
): { before: Map<string, OptimizationView[]>; top: OptimizationView[] } {
  const index = new Map(messages.map((m, i) => [m.id, i]));
  const before = new Map<string, OptimizationView[]>();
  const top: OptimizationView[] = [];
  optimizations.forEach((optimization, position) => {
    const shown = optimization.summaries
      .map((s) => s.summary_message_id)
      .filter((id) => index.has(id))
      .sort((a, b) => (index.get(a) ?? 0) - (index.get(b) ?? 0));
    const first = shown[0];
    if (first !== undefined) before.set(first, [...(before.get(first) ?? []), optimization]);
    // only the latest optimization's drops are still out of view; older ones were superseded
    else if (position === optimizations.length - 1 && optimization.dropped.length > 0)
      top.push(optimization);
  });
  return { before, top };
}

interface TranscriptCardProps extends MessageCallbacks {
  message: ContextMessage;
  toolResults: ToolResults | undefined;
  running: boolean;
  /** the progress of this request's running calls; undefined unless one reported any */
  toolProgress: Readonly<Record<string, string>> | undefined;
  /** sub-agent calls of this message seen live; undefined for other messages */
  subAgents: SubAgentViews | undefined;
  highlighted: boolean;
  streamText: string | undefined;
  /** the reasoning streamed so far, while the message streams */
  streamThinking: string | undefined;
  versions: VersionSwitch | undefined;
}

/** Where the branch you are on left another: a fork, a regenerated answer, an edit. */
function BranchNoticeLine({ notice }: { notice: BranchNotice }) {
  return (
    <div
      role="note"
      aria-label="Branch notice"
      data-kind={notice.kind}
      className="flex items-center gap-2 px-1 text-xs text-zinc-600 dark:text-zinc-400"
    >
      <BranchIcon className="size-3.5 shrink-0" />
      <span className="h-px w-3 shrink-0 bg-zinc-300 dark:bg-zinc-700" aria-hidden="true" />
      <span>{notice.text}</span>
    </div>
  );
}

/** One message of the transcript; memoized, so only cards whose props changed render again. */
const TranscriptCard = memo(function TranscriptCard({
  message,
  highlighted,
  streamText,
  streamThinking,
  toolResults,
  running,
  toolProgress,
  subAgents,
  versions,
  ...callbacks
}: TranscriptCardProps) {
  return (
    <div className={highlighted ? "arbor-highlight" : undefined}>
      {streamThinking !== undefined && streamThinking !== "" && (
        <details className="mb-1 rounded-md px-3 text-xs text-zinc-500 dark:text-zinc-400">
          <summary className="cursor-pointer">Reasoning…</summary>
          <p className="mt-1 whitespace-pre-wrap">{streamThinking}</p>
        </details>
      )}
      <MessageCard
        message={message}
        streamingText={streamText}
        toolResults={toolResults}
        running={message.body.message_type === "tool_request" ? running : false}
        toolProgress={toolProgress}
        subAgents={subAgents}
        versions={versions}
        {...callbacks}
      />
    </div>
  );
});

export function Transcript({
  sessionId,
  messages,
  fullMessages,
  modelMessages,
  optimizations,
  view,
  streams,
  announced,
  toolProgress,
  folds = [],
  subAgents = {},
  activeBranchId,
  branches = [],
  onCheckout,
  state,
  agentMode,
  highlight,
  callbacks,
  outgoing = [],
  onRetryOutgoing,
  onDiscardOutgoing,
}: TranscriptProps) {
  // one stable switch per message with versions, so the memoized cards keep their props
  const versions = useMemo(() => {
    const out = new Map<string, VersionSwitch>();
    // a notice (ask N ways' verdict) is not a version: its switch goes on the answer after it
    const notices = new Set(
      fullMessages.filter((m) => m.body.message_type === "system_control").map((m) => m.id),
    );
    for (const [id, found] of messageVersions(branches, activeBranchId, (id) => notices.has(id))) {
      out.set(id, {
        index: found.index,
        count: found.branchIds.length,
        onSelect: (index) => {
          const target = found.branchIds[index];
          if (target !== undefined) onCheckout?.(target);
        },
      });
    }
    return out;
  }, [branches, activeBranchId, onCheckout, fullMessages]);
  // what happened where this branch left the one it came from (branchNotices)
  const notices = useMemo(() => {
    const pool = new Map(fullMessages.map((m) => [m.id, m]));
    const all = branchNotices(branches, activeBranchId, (id) => pool.get(id));
    const after = new Map<string, BranchNotice[]>();
    const top: BranchNotice[] = [];
    for (const notice of all) {
      if (notice.after_message_id === undefined) top.push(notice);
      else
        after.set(notice.after_message_id, [...(after.get(notice.after_message_id) ?? []), notice]);
    }
    return { after, top };
  }, [branches, activeBranchId, fullMessages]);
  // An answer announced before the list was refetched gets a stand-in card. While a text of the
  // user's is still on its way (a slow network: the stream told of the answer before the POST's
  // answer named the stored text), a stand-in without any text yet is not shown: it would be an
  // empty card above the "Sending…" one.
  // (a string, so the list is not rebuilt on every delta)
  const silent = outgoing.some((m) => m.status === "sending")
    ? announced
        .filter((a) => (streams[a.message_id]?.text ?? "") === "")
        .map((a) => a.message_id)
        .join(" ")
    : "";
  const shown = useMemo(() => {
    const known = new Set(messages.map((m) => m.id));
    const hidden = new Set(silent.split(" "));
    const extra = announced
      .filter(
        (a) =>
          !known.has(a.message_id) &&
          a.role === "assistant" &&
          (a.branch_id === "" || activeBranchId === undefined || a.branch_id === activeBranchId) &&
          !hidden.has(a.message_id),
      )
      .map((a) => placeholder(sessionId, a));
    return [...messages, ...extra];
  }, [messages, announced, activeBranchId, sessionId, silent]);

  const tools = useMemo(() => pairToolResults(shown), [shown]);
  // present_plan / ask_question calls are shown as their Plan / Question cards only (issue #27)
  const cards = useMemo(() => withoutCardCalls(shown), [shown]);
  const placement = useMemo(
    () =>
      view === "optimized"
        ? dividerPlacement(shown, optimizations)
        : { before: new Map(), top: [] },
    [view, shown, optimizations],
  );
  const afterFull = useMemo(
    () =>
      view === "full"
        ? fullHistoryPlacement(shown, modelMessages ?? [], optimizations)
        : new Map<string, OptimizationView[]>(),
    [view, shown, modelMessages, optimizations],
  );
  // the summaries and masked outputs an optimization made, as the model's view shows them
  const madeBy = (optimization: OptimizationView): ContextMessage[] => {
    const ids = new Set(optimization.summaries.map((s) => s.summary_message_id));
    const source = view === "full" ? (modelMessages ?? []) : shown;
    return source.filter((message) => ids.has(message.id));
  };
  // a summary's text is in its divider: not a second time as a notice card
  const inDivider = useMemo(() => {
    const ids = new Set<string>();
    for (const list of placement.before.values()) {
      for (const optimization of list) {
        for (const summary of optimization.summaries) ids.add(summary.summary_message_id);
      }
    }
    return ids;
  }, [placement]);
  const originals = (optimization: OptimizationView): ContextMessage[] => {
    const ids = new Set([
      ...optimization.summaries.flatMap((s) => s.replaces),
      ...optimization.dropped,
    ]);
    return fullMessages.filter((m) => ids.has(m.id));
  };

  // Follow the conversation while it grows, unless the reader scrolled up to read. The first
  // render with messages and each message of the user's own jump to the end regardless (a reload
  // restores an old scroll position, which must not switch following off).
  const lastMessage = shown.at(-1);
  const outgoingCount = outgoing.length;
  // the streamed text, then the stored one: both may grow the page
  const lastText = lastMessage
    ? Math.max(
        streams[lastMessage.id]?.text.length ?? 0,
        lastMessage.body.message_type === "text" ? lastMessage.body.text.length : 0,
      )
    : 0;
  const followRef = useRef(true);
  const placedRef = useRef(false);
  useEffect(() => {
    const onScroll = () => {
      const fromBottom =
        document.documentElement.scrollHeight - window.scrollY - window.innerHeight;
      followRef.current = fromBottom < 160;
    };
    window.addEventListener("scroll", onScroll, { passive: true });
    return () => window.removeEventListener("scroll", onScroll);
  }, []);
  useEffect(() => {
    if (highlight || shown.length + outgoingCount === 0) return;
    const mine = lastMessage?.role === "user" || outgoingCount > 0;
    if (!placedRef.current || mine) followRef.current = true;
    placedRef.current = true;
    if (followRef.current) {
      window.scrollTo({ top: document.documentElement.scrollHeight });
    }
  }, [shown.length, lastMessage?.role, lastText, highlight, outgoingCount]);
  useEffect(() => {
    if (!highlight) return;
    document
      .querySelector(`[data-message-id="${CSS.escape(highlight)}"]`)
      ?.scrollIntoView({ block: "center" });
  }, [highlight]);

  // the folds a message's `branch` calls started (nested folds go inside their parent's card)
  const foldsOf = (message: ContextMessage): FoldView[] => {
    if (message.body.message_type !== "tool_request" || folds.length === 0) return [];
    const calls = new Set(message.body.calls.filter((c) => c.name === "branch").map((c) => c.id));
    return folds.filter(
      (f) => f.parent_fold_id === null && f.tool_call_id !== null && calls.has(f.tool_call_id),
    );
  };

  const latestPlanId = [...shown].reverse().find((m) => m.body.message_type === "plan")?.id;
  // A card says "Streaming" only while the state line says the session works: once it rests, a
  // row fetched mid-stream is only waiting for its refetch, and must not contradict it.
  const running = isRunning(state);
  const cardFor = (stored: ContextMessage): ReactNode => {
    const message: ContextMessage =
      stored.status === "streaming" && !running ? { ...stored, status: "complete" } : stored;
    const stream = streams[message.id];
    const streaming = message.status === "streaming";
    const waitingQuestion =
      state.type === "AwaitingUserAnswer" && state.question_message_id === message.id;
    const questionOpen =
      waitingQuestion || (state.type === "Idle" && message.id === shown.at(-1)?.id);
    // every prop is stable between events unless it concerns this card, so a delta re-renders
    // the streaming card only, not the whole transcript's markdown
    return (
      <TranscriptCard
        message={message}
        highlighted={message.id === highlight}
        toolResults={tools.byRequest.get(message.id)}
        running={running}
        toolProgress={progressOf(message, toolProgress)}
        subAgents={subAgentsOf(message, subAgents)}
        streamText={stream?.text}
        streamThinking={streaming ? stream?.thinking : undefined}
        onFork={streaming ? undefined : callbacks.onFork}
        onEditResend={callbacks.onEditResend}
        onRegenerate={
          state.type === "Idle" || state.type === "Failed" ? callbacks.onRegenerate : undefined
        }
        versions={onCheckout && !streaming ? versions.get(message.id) : undefined}
        onToolDecisions={
          state.type === "AwaitingToolApproval" ? callbacks.onToolDecisions : undefined
        }
        onNestedDecisions={callbacks.onNestedDecisions}
        onApprovePlan={
          agentMode === "plan" && state.type === "Idle" && message.id === latestPlanId
            ? callbacks.onApprovePlan
            : undefined
        }
        onAnswer={questionOpen ? callbacks.onAnswer : undefined}
        onOpenFile={callbacks.onOpenFile}
      />
    );
  };

  return (
    <section aria-label="Transcript" className="flex flex-col gap-3">
      {notices.top.map((notice) => (
        <BranchNoticeLine key={notice.branch_id} notice={notice} />
      ))}
      {placement.top.map((optimization) => (
        <OptimizationDivider
          key={optimization.id}
          view={optimization}
          newMessages={madeBy(optimization)}
          originalMessages={originals(optimization)}
        />
      ))}
      {cards.map((message) => (
        <Fragment key={message.id}>
          {placement.before.get(message.id)?.map((optimization: OptimizationView) => (
            <OptimizationDivider
              key={optimization.id}
              view={optimization}
              newMessages={madeBy(optimization)}
              originalMessages={originals(optimization)}
            />
          ))}
          {tools.folded.has(message.id) || inDivider.has(message.id) ? null : cardFor(message)}
          {foldsOf(message).map((fold) => (
            <FoldCard
              key={fold.fold_id}
              fold={fold}
              folds={folds}
              onOpenFile={callbacks.onOpenFile}
              onToolDecisions={callbacks.onNestedDecisions}
            />
          ))}
          {afterFull.get(message.id)?.map((optimization: OptimizationView) => (
            <OptimizationDivider
              key={optimization.id}
              view={optimization}
              newMessages={madeBy(optimization)}
              originalMessages={originals(optimization)}
              originalsShown
            />
          ))}
          {notices.after.get(message.id)?.map((notice) => (
            <BranchNoticeLine key={notice.branch_id} notice={notice} />
          ))}
        </Fragment>
      ))}
      {outgoing.map((message) => (
        <OutgoingCard
          key={message.key}
          message={message}
          onRetry={onRetryOutgoing}
          onDiscard={onDiscardOutgoing}
        />
      ))}
    </section>
  );
}
