import type { HttpCallPreview } from "@arbor/core/browser";
import { unreachable } from "../state-label.js";

// What a tool call will do, as its tool described it when the call was stored: for an OpenAPI
// call the method, the full URL and which credential goes where. Shown above the arguments so a
// person approves the request itself, not a tool name (issue #24): the host a credential is sent
// to is on the card, its value never is (the server never puts it in the preview).

function placementText(credential: NonNullable<HttpCallPreview["credential"]>): string {
  switch (credential.placement) {
    case "bearer":
      return "as a bearer token (Authorization header)";
    case "basic":
      return "as basic auth (Authorization header)";
    case "header":
      return `in the header ${credential.name ?? ""}`.trimEnd();
    case "query":
      return `in the query parameter ${credential.name ?? ""}`.trimEnd();
    default:
      return unreachable(credential.placement);
  }
}

export function CallPreview({ name, preview }: { name: string; preview: HttpCallPreview }) {
  const { credential } = preview;
  return (
    <dl
      aria-label={`Request of ${name}`}
      className="mt-2 grid grid-cols-[auto_1fr] gap-x-2 gap-y-0.5 text-xs"
    >
      <dt className="text-zinc-500 dark:text-zinc-400">Request</dt>
      <dd className="break-all font-mono">
        <span className="font-semibold">{preview.method}</span> {preview.url}
      </dd>
      <dt className="text-zinc-500 dark:text-zinc-400">Credential</dt>
      <dd>
        {credential === undefined ? (
          "none"
        ) : (
          <>
            <code className="font-mono">{credential.env}</code> {placementText(credential)}, sent to{" "}
            <span className="font-semibold">{credential.host}</span>
          </>
        )}
      </dd>
    </dl>
  );
}
