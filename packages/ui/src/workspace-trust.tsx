"use client";

import type { TrustDefinitionView } from "@arbor/core/browser";
import type { ReactNode } from "react";
import { badgeClass, buttonClass } from "./styles.js";

// The workspace's executable configuration (mcp_servers.json, .mcp.json, .arbor/openapi.json, the
// hooks of .claude/settings.json and .arbor/settings.json, each command on its own)
// waits for a person: this prompt shows what each definition would do once trusted (the command
// and its arguments, the URLs fetched, which credential goes to which host) and asks once. A
// definition edited after it was trusted shows as changed and asks again.

export interface WorkspaceTrustPromptProps {
  definitions: readonly TrustDefinitionView[];
  /** ARBOR_TRUST_WORKSPACE_CONFIG=1: shown as a warning instead of a prompt */
  trustAll: boolean;
  /** trusts one (install.configure); absent: no Trust button, the prompt says who may */
  onTrust?: ((definition: TrustDefinitionView) => void) | undefined;
  /** keys (`file\0name`) whose trust is being saved */
  busy?: ReadonlySet<string>;
  /** hides the prompt until the next change (the definitions stay inert) */
  onDismiss?: () => void;
}

export function trustKey(definition: Pick<TrustDefinitionView, "file" | "name">): string {
  return `${definition.file}\0${definition.name}`;
}

/** The prompt above the chat: the definitions waiting for trust; nothing when none waits. */
export function WorkspaceTrustPrompt({
  definitions,
  trustAll,
  onTrust,
  busy,
  onDismiss,
}: WorkspaceTrustPromptProps) {
  if (trustAll) {
    return (
      <div
        role="alert"
        data-testid="workspace-trust-all"
        className="rounded-md border border-amber-400 bg-amber-50 px-3 py-2 text-sm text-amber-900 dark:border-amber-600 dark:bg-amber-950 dark:text-amber-100"
      >
        ARBOR_TRUST_WORKSPACE_CONFIG=1: the workspace's MCP servers and OpenAPI specs run without
        asking anyone. Unset it unless every repository opened here is yours.
      </div>
    );
  }
  const waiting = definitions.filter((d) => d.status !== "trusted");
  if (waiting.length === 0) return null;
  return (
    <section
      aria-label="Workspace configuration waiting for trust"
      data-testid="workspace-trust-prompt"
      className="rounded-md border border-amber-400 bg-amber-50 p-3 text-sm text-amber-950 dark:border-amber-600 dark:bg-amber-950 dark:text-amber-50"
    >
      <div className="flex items-start gap-2">
        <p className="flex-1">
          This workspace's files define {waiting.length === 1 ? "something" : "things"} that would
          run on this machine.{" "}
          {onTrust !== undefined
            ? "Nothing of it starts, is read or is fetched until you trust it. Trust only what you recognise."
            : "Nothing of it starts, is read or is fetched until an admin trusts it."}
        </p>
        {onDismiss !== undefined && (
          <button type="button" className={buttonClass.ghost} onClick={onDismiss}>
            Not now
          </button>
        )}
      </div>
      <ul className="mt-2 flex flex-col gap-2">
        {waiting.map((definition) => (
          <DefinitionCard
            key={trustKey(definition)}
            definition={definition}
            busy={busy?.has(trustKey(definition)) === true}
            {...(onTrust !== undefined
              ? { action: { label: "Trust", onClick: () => onTrust(definition) } }
              : {})}
          />
        ))}
      </ul>
    </section>
  );
}

export interface WorkspaceTrustListProps {
  definitions: readonly TrustDefinitionView[];
  /** trust and revoke (install.configure); absent: the list without buttons (a member) */
  onTrust?: ((definition: TrustDefinitionView) => void) | undefined;
  onRevoke?: ((definition: TrustDefinitionView) => void) | undefined;
  busy?: ReadonlySet<string>;
}

/** Every definition with its trust, for the session settings: trust or revoke each. */
export function WorkspaceTrustList({
  definitions,
  onTrust,
  onRevoke,
  busy,
}: WorkspaceTrustListProps) {
  if (definitions.length === 0) {
    return (
      <p className="text-xs text-zinc-600 dark:text-zinc-400" data-testid="workspace-trust-empty">
        The workspace defines no MCP servers (mcp_servers.json, .mcp.json), no OpenAPI specs
        (.arbor/openapi.json) and no hooks (.claude/settings.json, .arbor/settings.json).
      </p>
    );
  }
  return (
    <ul className="flex flex-col gap-2" aria-label="Workspace configuration">
      {definitions.map((definition) => (
        <DefinitionCard
          key={trustKey(definition)}
          definition={definition}
          busy={busy?.has(trustKey(definition)) === true}
          {...(onTrust === undefined || onRevoke === undefined
            ? {}
            : {
                action:
                  definition.status === "trusted"
                    ? { label: "Revoke", onClick: () => onRevoke(definition) }
                    : { label: "Trust", onClick: () => onTrust(definition) },
              })}
        />
      ))}
    </ul>
  );
}

const kindLabel: Record<TrustDefinitionView["kind"], string> = {
  mcp_server: "MCP server",
  openapi_spec: "OpenAPI spec",
  hook: "Hook",
};

const statusLabel: Record<TrustDefinitionView["status"], string> = {
  trusted: "trusted",
  untrusted: "not trusted",
  changed: "changed since trusted",
};

function DefinitionCard({
  definition,
  busy,
  action,
}: {
  definition: TrustDefinitionView;
  busy: boolean;
  /** absent: nothing to press (a member) */
  action?: { label: string; onClick: () => void };
}) {
  const { runs } = definition;
  const kind = kindLabel[definition.kind];
  return (
    <li
      data-testid="trust-definition"
      data-status={definition.status}
      data-name={definition.name}
      className="rounded-md border border-zinc-300 bg-white p-2 text-zinc-900 dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-100"
    >
      <div className="flex flex-wrap items-center gap-2">
        <span className="min-w-0 flex-1 truncate font-medium">
          {kind} <code className="font-mono">{definition.name}</code>{" "}
          <span className="text-xs font-normal text-zinc-600 dark:text-zinc-400">
            in {definition.file}
          </span>
        </span>
        <span
          className={`${badgeClass} ${
            definition.status === "trusted"
              ? "bg-emerald-100 text-emerald-800 dark:bg-emerald-900 dark:text-emerald-100"
              : "bg-amber-100 text-amber-900 dark:bg-amber-900 dark:text-amber-100"
          }`}
          data-testid="trust-status"
        >
          {statusLabel[definition.status]}
        </span>
        {action !== undefined && (
          <button
            type="button"
            className={action.label === "Trust" ? buttonClass.primary : buttonClass.secondary}
            disabled={busy}
            aria-label={`${action.label} ${definition.name}`}
            onClick={action.onClick}
          >
            {busy ? "Saving…" : action.label}
          </button>
        )}
      </div>
      <dl className="mt-1 grid grid-cols-[auto_1fr] gap-x-2 gap-y-0.5 text-xs">
        {runs.hook !== undefined && (
          <Row label="On">
            <span data-testid="trust-hook">
              {runs.hook.event}
              {runs.hook.matcher !== undefined && runs.hook.matcher !== ""
                ? ` for ${runs.hook.matcher}`
                : ""}
              , up to {runs.hook.timeout_s} s
            </span>
          </Row>
        )}
        {runs.command !== undefined && (
          <Row label="Runs">
            <code className="font-mono break-all" data-testid="trust-command">
              {[runs.command, ...(runs.args ?? [])].map(shellQuote).join(" ")}
            </code>
          </Row>
        )}
        {runs.cwd !== undefined && (
          <Row label="In">{runs.cwd === "." ? "the workspace root" : runs.cwd}</Row>
        )}
        {runs.command !== undefined && (
          <Row label="Network">{runs.network === false ? "none" : "allowed"}</Row>
        )}
        {runs.url !== undefined && (
          <Row label="Connects to">
            <code className="font-mono break-all">{runs.url}</code>
          </Row>
        )}
        {runs.headers !== undefined && runs.headers.length > 0 && (
          <Row label="Headers">{runs.headers.join(", ")}</Row>
        )}
        {runs.env !== undefined && runs.env.length > 0 && (
          <Row label="Sets">{runs.env.join(", ")}</Row>
        )}
        {runs.spec !== undefined && (
          <Row label="Spec">
            <code className="font-mono break-all">{runs.spec}</code>
          </Row>
        )}
        {runs.fetches !== undefined && runs.fetches.length > 0 && (
          <Row label="Fetches">{runs.fetches.join(", ")}</Row>
        )}
        {runs.base_url !== undefined && <Row label="Calls">{runs.base_url}</Row>}
        {runs.credential !== undefined && (
          <Row label="Credential">
            <span data-testid="trust-credential">
              {runs.credential.env} ({runs.credential.type})
              {runs.credential.sent_to !== undefined
                ? ` → ${runs.credential.sent_to} only`
                : " → the spec's server"}
            </span>
          </Row>
        )}
        {runs.variables !== undefined && runs.variables.length > 0 && (
          <Row label="Reads">{runs.variables.join(", ")}</Row>
        )}
        {definition.trusted_by !== undefined && (
          <Row label="Trusted">
            by {definition.trusted_by}
            {definition.trusted_at !== undefined ? `, ${definition.trusted_at}` : ""}
          </Row>
        )}
      </dl>
    </li>
  );
}

function Row({ label, children }: { label: string; children: ReactNode }) {
  return (
    <>
      <dt className="text-zinc-600 dark:text-zinc-400">{label}</dt>
      <dd className="min-w-0">{children}</dd>
    </>
  );
}

/** A word as a shell would need it written: quoted when it holds anything but plain characters. */
function shellQuote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;
}
