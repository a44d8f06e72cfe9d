"use client";

import type {
  AgentMode,
  ApprovalDecision,
  MergeRequest,
  MergeResponse,
  MessageDelivery,
  ParallelCandidate,
  ParallelJudge,
  PatchConfigRequest,
  ResolveMergeRequest,
  UpdateBranchRequest,
} from "@arbor/core/browser";
import {
  type AttachmentSelection,
  type ComposerSubmission,
  fileReferenceLabel,
  type MessageCallbacks,
  type OutgoingMessage,
} from "@arbor/ui";
import { useCallback, useEffect, useMemo, useState } from "react";
import { toast } from "sonner";
import { ApiError, api, errorText } from "@/lib/client/api";
import type { LiveSession } from "@/lib/client/use-live-session";

// Everything the chat page can ask of the server, each wrapped so a failure becomes the page's
// error banner (with Retry) instead of an unhandled rejection. Streaming answers are pumped into
// the live store; plain JSON answers refresh the queries they change. A text the user sends is
// "outgoing" from the click until the server stored it: shown at once, held while the connection
// is down (sent, in order, when it is back), and kept with Retry when the server refused it, so
// nothing typed is lost.

export interface Outgoing extends OutgoingMessage {
  /** the stored message's id, once the server announced it */
  acceptedId?: string | undefined;
  /** how a held text is delivered when it goes (steer or follow-up) */
  delivery?: MessageDelivery | undefined;
  /** the files sent with the text, in the same message */
  attachments?: readonly AttachmentSelection[] | undefined;
}

export interface ChatActionsDeps {
  sessionId: string;
  live: LiveSession;
  refreshSession: () => Promise<void>;
  refreshMessages: () => Promise<void>;
  /** a codebase result's `file:line` was clicked: open the file view there */
  openFile: (path: string, line: number) => void;
  /** the browser is online and the live stream is not down: sends go now, else they are held */
  connected: boolean;
}

export interface ChatActions {
  actionError: string | undefined;
  /** tries the action that failed again (the banner's Retry); undefined when none failed */
  retryAction: (() => void) | undefined;
  clearError: () => void;
  /** texts sent and not yet in the stored list (sending, or refused) */
  outgoing: readonly Outgoing[];
  retryOutgoing: (key: string) => void;
  discardOutgoing: (key: string) => void;
  send: (submission: ComposerSubmission) => void;
  /** an MCP prompt with its arguments, as an `mcp_prompt` message */
  sendPrompt: (prompt: { server: string; name: string }, args: Record<string, string>) => void;
  /** ask N ways: one text to several candidates at once, one chosen (the columns show them) */
  askWays: (
    text: string,
    body: { candidates: ParallelCandidate[]; judge?: Partial<ParallelJudge> },
  ) => void;
  /** ask N ways, after the verdict: the conversation goes on with another candidate's answer */
  chooseAnswer: (groupId: string, candidate: number) => void;
  stop: () => void;
  resume: () => void;
  setMode: (mode: AgentMode) => void;
  saveSettings: (patch: PatchConfigRequest) => void;
  checkout: (branchId: string) => void;
  merge: (request: MergeRequest) => Promise<MergeResponse>;
  resolve: (mergeId: string, request: ResolveMergeRequest) => Promise<MergeResponse>;
  /** the branch settings dialog shows a refusal itself, so these reject with it */
  updateBranch: (branchId: string, patch: UpdateBranchRequest) => Promise<void>;
  deleteBranch: (branchId: string) => Promise<void>;
  callbacks: Required<MessageCallbacks>;
}

export function useChatActions({
  sessionId,
  live,
  refreshSession,
  refreshMessages,
  openFile,
  connected,
}: ChatActionsDeps): ChatActions {
  const [actionError, setActionError] = useState<string | undefined>();
  // the action that failed, to try again from the banner's Retry
  const [failedAction, setFailedAction] = useState<(() => void) | undefined>();
  const { pump, store, signal } = live;

  // One place per error (issue #27, 0055): an action that failed is said in the page's banner,
  // with Retry, and not in a toast as well.
  const run = useCallback(
    function runAction(what: string, task: () => Promise<void>) {
      setActionError(undefined);
      setFailedAction(undefined);
      store.setError(undefined);
      void task()
        .catch((error: unknown) => {
          // the page went away mid-stream: nothing to report
          if (error instanceof DOMException && error.name === "AbortError") return;
          setActionError(`${what}: ${errorText(error)}`);
          setFailedAction(() => () => runAction(what, task));
        })
        .finally(() => {
          void refreshSession();
          void refreshMessages();
        });
    },
    [store, refreshSession, refreshMessages],
  );

  const [outgoing, setOutgoing] = useState<Outgoing[]>([]);
  const patchOutgoing = useCallback(
    (key: string, change: Partial<Outgoing>) =>
      setOutgoing((list) => list.map((m) => (m.key === key ? { ...m, ...change } : m))),
    [],
  );

  /**
   * Sends one outgoing text. Resolves when the operation's stream ends; a refusal (an HTTP error,
   * or an unsequenced error event before the message was stored) marks it failed instead.
   */
  const deliver = useCallback(
    async function deliverText(
      key: string,
      text: string,
      delivery?: MessageDelivery,
      attachments: readonly AttachmentSelection[] = [],
    ): Promise<void> {
      patchOutgoing(key, { status: "sending", error: undefined });
      let accepted = false;
      try {
        let refusal: string | undefined;
        const events = await api.sendMessage(
          sessionId,
          {
            type: "text",
            text,
            ...(attachments.length > 0
              ? {
                  attachments: attachments.map(({ name, mime_type, data }) => ({
                    name,
                    mime_type,
                    data,
                  })),
                }
              : {}),
          },
          { signal: signal(), ...(delivery ? { delivery } : {}) },
        );
        for await (const event of events) {
          if (event.name === "error" && event.sequence === 0 && !accepted) {
            // shown on the message card, not as the page's banner
            refusal = event.payload.message;
            continue;
          }
          store.ingest(event, "request");
          const update = event.name === "context_update" ? event.payload.message_update : undefined;
          if (update?.kind === "created" && update.role === "user" && !accepted) {
            accepted = true;
            patchOutgoing(key, { acceptedId: update.message_id });
          }
        }
        if (refusal !== undefined) throw new Error(refusal);
        await refreshMessages();
        setOutgoing((list) => list.filter((m) => m.key !== key));
      } catch (error) {
        if (error instanceof DOMException && error.name === "AbortError") return;
        if (accepted) {
          // the message is stored; what failed is the run after it, which the state line shows
          setOutgoing((list) => list.filter((m) => m.key !== key));
          setActionError(`The run failed: ${errorText(error)}`);
          return;
        }
        if (error instanceof ApiError && error.code === "network") {
          // the server could not be reached: held, and sent when the connection is back
          patchOutgoing(key, { status: "held", error: undefined, delivery });
          return;
        }
        const why = errorText(error);
        patchOutgoing(key, { status: "failed", error: why });
        toast.error("Your message was not sent", {
          id: key,
          description: why,
          action: {
            label: "Retry",
            onClick: () => void deliverText(key, text, delivery, attachments),
          },
        });
      } finally {
        void refreshSession();
        void refreshMessages();
      }
    },
    [patchOutgoing, refreshMessages, refreshSession, sessionId, signal, store],
  );

  const sendText = useCallback(
    (
      text: string,
      delivery?: MessageDelivery,
      attachments: readonly AttachmentSelection[] = [],
    ) => {
      const key = `out-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
      setActionError(undefined);
      store.setError(undefined);
      if (!connected) {
        setOutgoing((list) => [...list, { key, text, status: "held", delivery, attachments }]);
        return Promise.resolve();
      }
      setOutgoing((list) => [...list, { key, text, status: "sending", attachments }]);
      return deliver(key, text, delivery, attachments);
    },
    [connected, deliver, store],
  );

  // back online: the held texts go, oldest first, each after the one before it was answered
  const [releasing, setReleasing] = useState(false);
  useEffect(() => {
    if (!connected || releasing) return;
    const held = outgoing.filter((m) => m.status === "held");
    if (held.length === 0) return;
    setReleasing(true);
    void (async () => {
      for (const message of held)
        await deliver(message.key, message.text, message.delivery, message.attachments);
    })()
      // a text held again (the server still away) waits a moment before the next try
      .finally(() => setTimeout(() => setReleasing(false), 1_000));
  }, [connected, releasing, outgoing, deliver]);

  const retryOutgoing = useCallback(
    (key: string) => {
      const message = outgoing.find((m) => m.key === key);
      toast.dismiss(key);
      if (message) void deliver(key, message.text, message.delivery, message.attachments);
    },
    [outgoing, deliver],
  );
  const discardOutgoing = useCallback((key: string) => {
    toast.dismiss(key);
    setOutgoing((list) => list.filter((m) => m.key !== key));
  }, []);

  const send = useCallback(
    ({ text, attachments, files, resources, delivery }: ComposerSubmission) =>
      run("Sending failed", async () => {
        // Files attached with a text go in the text's message: one turn, one model request that
        // sees the files and the question together. Alone (no text), each file is its own
        // message. Each workspace reference and resource is its own message; the text goes last.
        const alone = text === "" ? attachments : [];
        for (const file of alone) {
          await pump(
            api.sendMessage(
              sessionId,
              { type: "attachment", name: file.name, mime_type: file.mime_type, data: file.data },
              { signal: signal() },
            ),
          );
        }
        for (const file of files) {
          await pump(
            api.sendMessage(
              sessionId,
              {
                type: "file_reference",
                path: file.path,
                ...(file.range ? { range: file.range } : {}),
                display_text: `@${fileReferenceLabel(file)}`,
              },
              { signal: signal() },
            ),
          );
        }
        for (const resource of resources) {
          await pump(
            api.sendMessage(
              sessionId,
              { type: "mcp_resource", server_name: resource.server, resource_uri: resource.uri },
              { signal: signal() },
            ),
          );
        }
        // sent while the agent works, the text is queued (steer or follow-up) and its stream
        // ends at once; file references and resources wait for the running operation
        if (text !== "") await sendText(text, delivery, attachments);
      }),
    [run, pump, signal, sendText, sessionId],
  );

  // an MCP prompt (the composer's `/` commands): each of its messages joins the conversation
  const sendPrompt = useCallback(
    (prompt: { server: string; name: string }, args: Record<string, string>) =>
      run("Using the prompt failed", () =>
        pump(
          api.sendMessage(
            sessionId,
            {
              type: "mcp_prompt",
              server_name: prompt.server,
              prompt_name: prompt.name,
              arguments: args,
            },
            { signal: signal() },
          ),
        ),
      ),
    [run, pump, signal, sessionId],
  );

  const stop = useCallback(
    () =>
      run("Stopping failed", async () => {
        await api.interrupt(sessionId);
      }),
    [run, sessionId],
  );

  const resume = useCallback(
    () => run("Resuming failed", () => pump(api.resume(sessionId, { signal: signal() }))),
    [run, pump, signal, sessionId],
  );

  const saveSettings = useCallback(
    (patch: PatchConfigRequest) =>
      run("Saving the settings failed", async () => {
        await api.patchConfig(sessionId, patch);
      }),
    [run, sessionId],
  );

  const setMode = useCallback(
    (mode: AgentMode) => saveSettings({ agent_mode: mode }),
    [saveSettings],
  );

  const checkout = useCallback(
    (branchId: string) =>
      run("Switching branch failed", async () => {
        await api.checkoutBranch(sessionId, branchId);
      }),
    [run, sessionId],
  );

  // The merge dialog shows the server's answer (conflicts, warnings) itself, so errors propagate.
  const merge = useCallback(
    async (request: MergeRequest) => {
      const answer = await api.merge(sessionId, request);
      await Promise.all([refreshSession(), refreshMessages()]);
      return answer;
    },
    [sessionId, refreshSession, refreshMessages],
  );
  const resolve = useCallback(
    async (mergeId: string, request: ResolveMergeRequest) => {
      const answer = await api.resolveMerge(sessionId, mergeId, request);
      await Promise.all([refreshSession(), refreshMessages()]);
      return answer;
    },
    [sessionId, refreshSession, refreshMessages],
  );

  const updateBranch = useCallback(
    async (branchId: string, patch: UpdateBranchRequest) => {
      await api.updateBranch(sessionId, branchId, patch);
      await refreshSession();
    },
    [sessionId, refreshSession],
  );
  const deleteBranch = useCallback(
    async (branchId: string) => {
      await api.deleteBranch(sessionId, branchId);
      await refreshSession();
    },
    [sessionId, refreshSession],
  );

  const askWays = useCallback(
    (text: string, body: { candidates: ParallelCandidate[]; judge?: Partial<ParallelJudge> }) =>
      run("Asking several ways failed", () =>
        pump(api.askParallel(sessionId, text, body, { signal: signal() })),
      ),
    [run, pump, signal, sessionId],
  );

  const chooseAnswer = useCallback(
    (groupId: string, candidate: number) =>
      run("Choosing the answer failed", async () => {
        const choice = await api.chooseParallelAnswer(sessionId, groupId, candidate);
        store.chooseParallel(choice.group_id, choice.selected);
      }),
    [run, store, sessionId],
  );

  const callbacks = useMemo<Required<MessageCallbacks>>(
    () => ({
      onFork: (messageId: string) =>
        run("Forking failed", async () => {
          await api.createBranch(sessionId, { from_message_id: messageId });
        }),
      onEditResend: (messageId: string, text: string) =>
        run("Edit & resend failed", () =>
          // the server forks before the message, puts the new text on the fork and answers it
          pump(api.editAndResend(sessionId, messageId, text, { signal: signal() })),
        ),
      onRegenerate: (messageId: string) =>
        run("Regenerating failed", () =>
          // the server forks at the user's message this one answers and answers it again
          pump(api.regenerate(sessionId, messageId, { signal: signal() })),
        ),
      onToolDecisions: (decisions: ApprovalDecision[]) =>
        run("Sending the decision failed", () => pump(api.decideToolCalls(sessionId, decisions))),
      // a sub-agent's child call: the same route, decided at once while the call runs
      onNestedDecisions: (decisions: ApprovalDecision[]) =>
        run("Sending the decision failed", () => pump(api.decideToolCalls(sessionId, decisions))),
      onApprovePlan: (messageId: string) =>
        run("Approving the plan failed", () =>
          pump(api.approvePlan(sessionId, messageId, { signal: signal() })),
        ),
      onAnswer: (_messageId: string, answer: string) => void sendText(answer),
      onOpenFile: openFile,
    }),
    [run, pump, signal, sendText, sessionId, openFile],
  );

  return {
    outgoing,
    retryOutgoing,
    discardOutgoing,
    actionError,
    retryAction: failedAction,
    clearError: () => {
      setActionError(undefined);
      setFailedAction(undefined);
      store.setError(undefined);
    },
    send,
    sendPrompt,
    askWays,
    chooseAnswer,
    stop,
    resume,
    setMode,
    saveSettings,
    checkout,
    merge,
    resolve,
    updateBranch,
    deleteBranch,
    callbacks,
  };
}
