import { headers } from "next/headers";
import { ChatView } from "@/components/chat/chat-view";
import { SessionNotFound } from "@/components/chat/session-not-found";
import { clientAddress } from "@/lib/server/people/admission";
import { authorize } from "@/lib/server/people/authorize";
import { getRuntime } from "@/lib/server/runtime";
import { modelInfo } from "../../model-info";

// The model list and default context window come from the environment at request time.
export const dynamic = "force-dynamic";

interface SessionPageProps {
  params: Promise<{ id: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}

export default async function SessionPage({ params, searchParams }: SessionPageProps) {
  const { id } = await params;
  const { message } = await searchParams;
  // an unknown session is answered at once, before any script runs or any request is retried
  const runtime = await getRuntime();
  const session = await runtime.manager.get(id);
  if (!session) return <SessionNotFound />;
  const model = modelInfo(runtime.providerKeys.modelEnv());
  // the MCP form and switches are offered to those who may use them (the routes ask again)
  const requestHeaders = await headers();
  const who = await runtime.people.authenticate(requestHeaders, clientAddress(requestHeaders));
  const canConfigure =
    typeof who !== "string" && authorize(who, "install.configure", { kind: "install" }).allowed;
  return (
    <ChatView
      // a new session id is a new page: no live state carries over
      key={id}
      sessionId={id}
      highlight={typeof message === "string" ? message : undefined}
      models={model.options}
      defaultContextWindow={model.contextWindow}
      canConfigure={canConfigure}
    />
  );
}
