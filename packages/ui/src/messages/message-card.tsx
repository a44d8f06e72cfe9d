"use client";

import type { ApprovalDecision, ContextMessage } from "@arbor/core/browser";
import { unreachable } from "../state-label.js";
import { AttachmentCard } from "./attachment-card.js";
import { CardShell, type VersionSwitch } from "./card-shell.js";
import { FileReferenceCard } from "./file-reference-card.js";
import { McpResourceCard } from "./mcp-resource-card.js";
import { PlanCard } from "./plan-card.js";
import { QuestionCard } from "./question-card.js";
import { SystemControlCard } from "./system-control-card.js";
import { TextCard } from "./text-card.js";
import { type SubAgentViews, ToolRequestCard, type ToolResults } from "./tool-request-card.js";
import { ToolResultCard } from "./tool-result-card.js";

/** What a transcript may offer on its messages. Each action is shown only when its callback is set. */
export interface MessageCallbacks {
  onFork?: ((messageId: string) => void) | undefined;
  /** user text messages: the edited text, to be sent on a new branch forked before this message */
  onEditResend?: ((messageId: string, text: string) => void) | undefined;
  /** tool calls waiting for approval: one decision per click, several for "Approve all" */
  onToolDecisions?: ((decisions: ApprovalDecision[]) => void) | undefined;
  /** calls waiting inside a running tool call (a sub-agent's child calls), while it runs */
  onNestedDecisions?: ((decisions: ApprovalDecision[]) => void) | undefined;
  onApprovePlan?: ((messageId: string) => void) | undefined;
  onAnswer?: ((messageId: string, answer: string) => void) | undefined;
  /** a `file:line` link in a codebase tool's result: open the file view at that line */
  onOpenFile?: ((path: string, line: number) => void) | undefined;
  /** assistant answers: a new answer to the same message, on a new branch */
  onRegenerate?: ((messageId: string) => void) | undefined;
}

export interface MessageCardProps extends MessageCallbacks {
  message: ContextMessage;
  /** the text streamed so far, while `message.status` is "streaming" */
  streamingText?: string | undefined;
  /** tool requests: the results of their calls, shown in the same card */
  toolResults?: ToolResults | undefined;
  /** tool requests: the session is working, so approved calls without a result are running */
  running?: boolean | undefined;
  /** tool requests: the latest progress of their running calls, by tool call id */
  toolProgress?: Readonly<Record<string, string>> | undefined;
  /** tool requests: sub-agent calls' child loops seen live, by tool_call_id */
  subAgents?: SubAgentViews | undefined;
  /** the other versions of this place in the conversation (edits, regenerated answers) */
  versions?: VersionSwitch | undefined;
}

function CardBody({
  message,
  streamingText,
  onToolDecisions,
  onNestedDecisions,
  onApprovePlan,
  onAnswer,
  toolResults,
  running,
  toolProgress,
  onOpenFile,
  subAgents,
}: MessageCardProps) {
  const { body } = message;
  switch (body.message_type) {
    case "text":
      return <TextCard message={message} body={body} streamingText={streamingText} />;
    case "file_reference":
      return <FileReferenceCard body={body} />;
    case "tool_request":
      return (
        <ToolRequestCard
          body={body}
          onToolDecisions={onToolDecisions}
          onNestedDecisions={onNestedDecisions}
          results={toolResults}
          running={running}
          progress={toolProgress}
          onOpenFile={onOpenFile}
          subAgents={subAgents}
        />
      );
    case "tool_result":
      return <ToolResultCard body={body} onOpenFile={onOpenFile} />;
    case "mcp_resource":
      return <McpResourceCard body={body} />;
    case "attachment":
      return <AttachmentCard body={body} />;
    case "system_control":
      return <SystemControlCard body={body} />;
    case "plan":
      return <PlanCard messageId={message.id} body={body} onApprovePlan={onApprovePlan} />;
    case "question":
      return <QuestionCard messageId={message.id} body={body} onAnswer={onAnswer} />;
    default:
      return unreachable(body);
  }
}

/** One transcript entry, chosen by message_type, inside the shared frame with its actions. */
export function MessageCard(props: MessageCardProps) {
  const { message, onFork, onEditResend, onRegenerate, versions } = props;
  const editableText =
    message.role === "user" && message.body.message_type === "text" ? message.body.text : undefined;
  return (
    <CardShell
      message={message}
      onFork={onFork}
      onEditResend={onEditResend}
      onRegenerate={onRegenerate}
      versions={versions}
      editableText={editableText}
      copyText={
        message.body.message_type === "text" && message.status !== "streaming"
          ? message.body.text
          : undefined
      }
    >
      <CardBody {...props} />
    </CardShell>
  );
}
