"use client";

import { HelpSheet } from "@arbor/ui";
import Link from "next/link";
import { type ReactNode, useId, useState } from "react";
import { ArborLogo, BranchIcon } from "../icons";
import { SkipLink } from "../skip-link";
import { buttonClass } from "../styles";
import { ThemeControl } from "../theme";

export interface ChatHeaderProps {
  title: string;
  branchesOpen: boolean;
  /** absent for a person who may only read (a viewer): no Branches button */
  onToggleBranches?: () => void;
  branchCount: number;
  /** opens the session list as a drawer (shown below 1280 px, where the sidebar is hidden) */
  onOpenSessions: () => void;
  activeBranchName: string | undefined;
  /** the session's model picker, once the config is loaded (in the status row: it wraps) */
  model?: ReactNode;
  /** the settings dialog's trigger, once the config is loaded */
  settings: ReactNode;
  /** the session's actions (rename, export, delete), once it is loaded */
  menu?: ReactNode;
  /** the state in a word or two ("Ready", "Thinking…"): the phone's status button shows it */
  statusSummary: string;
  /** the id of the conversation's element, which the skip link moves the focus to */
  conversationId: string;
  /** the status row: state line, usage meter, view switch */
  children: ReactNode;
}

/**
 * Navigation and session tools, then the live status. From 640 px both rows are shown. On a
 * phone the first row keeps what orients (the session list, the title, the session's menu) and
 * one button opens the rest (branches, settings, help, theme, the status, meter and model):
 * squeezed into one row they left the title a letter wide and clipped the status.
 */
export function ChatHeader({
  title,
  branchesOpen,
  onToggleBranches,
  branchCount,
  onOpenSessions,
  activeBranchName,
  model,
  settings,
  menu,
  statusSummary,
  conversationId,
  children,
}: ChatHeaderProps) {
  const [toolsOpen, setToolsOpen] = useState(false);
  const toolsId = useId();
  const statusId = useId();
  // below sm: shown only while the phone's button is pressed; from sm: always, in place
  const phoneShown = toolsOpen ? "flex" : "hidden";
  return (
    <header className="sticky top-0 z-20 border-b border-zinc-200 bg-white/95 backdrop-blur dark:border-zinc-800 dark:bg-zinc-900/95">
      <SkipLink target={conversationId}>Skip to conversation</SkipLink>
      <div className="mx-auto flex max-w-7xl flex-wrap items-center gap-x-1 gap-y-1 px-3 py-2 sm:gap-x-2 sm:px-4">
        <Link
          href="/"
          // the visible word is part of the name (WCAG 2.5.3, label in name)
          aria-label="Arbor: all sessions"
          className="inline-flex items-center gap-1.5 rounded-md px-1.5 py-1 text-sm font-semibold text-zinc-900 hover:bg-zinc-100 dark:text-zinc-50 dark:hover:bg-zinc-800"
        >
          <ArborLogo />
          <span className="hidden sm:inline">Arbor</span>
        </Link>
        <button
          type="button"
          className={`${buttonClass.ghost} xl:hidden`}
          aria-label="Open the session list"
          onClick={onOpenSessions}
        >
          <span aria-hidden="true">☰</span>
          <span className="hidden md:inline">Sessions</span>
        </button>
        <h1 className="min-w-0 flex-1 truncate text-sm font-medium sm:text-base" title={title}>
          {title}
        </h1>
        <button
          type="button"
          className={`${buttonClass.ghost} max-w-28 sm:hidden`}
          aria-expanded={toolsOpen}
          aria-controls={`${toolsId} ${statusId}`}
          aria-label={`${statusSummary}: status and tools`}
          onClick={() => setToolsOpen((open) => !open)}
        >
          <span className="truncate text-xs">{statusSummary}</span>
          <span aria-hidden="true">{toolsOpen ? "▴" : "▾"}</span>
        </button>
        <div
          id={toolsId}
          className={`${phoneShown} order-2 w-full flex-wrap items-center gap-1 sm:order-none sm:flex sm:w-auto sm:gap-2`}
        >
          {onToggleBranches !== undefined ? (
            <button
              type="button"
              className={buttonClass.ghost}
              aria-pressed={branchesOpen}
              onClick={onToggleBranches}
              // the count and the current branch are in the name at every width; the name ends
              // with the visible words ("2 · main", or "main" on a phone), as speech tools expect
              aria-label={
                activeBranchName
                  ? `Branches · ${branchCount} · ${activeBranchName}`
                  : `Branches · ${branchCount}`
              }
              title={activeBranchName ? `Current branch: ${activeBranchName}` : undefined}
            >
              <BranchIcon />
              {activeBranchName ? (
                <>
                  <span className="hidden text-zinc-500 sm:inline dark:text-zinc-400">
                    {branchCount} ·{" "}
                  </span>
                  <span
                    data-testid="current-branch"
                    className="max-w-[7rem] truncate sm:max-w-[12rem]"
                  >
                    {activeBranchName}
                  </span>
                </>
              ) : (
                <>
                  <span>Branches</span>
                  <span className="hidden text-zinc-500 sm:inline dark:text-zinc-400">
                    · {branchCount}
                  </span>
                </>
              )}
            </button>
          ) : (
            activeBranchName && (
              <span
                className="inline-flex min-w-0 items-center gap-1 text-sm text-zinc-600 dark:text-zinc-300"
                title={`Current branch: ${activeBranchName}`}
              >
                <BranchIcon />
                <span
                  data-testid="current-branch"
                  className="max-w-[7rem] truncate sm:max-w-[12rem]"
                >
                  {activeBranchName}
                </span>
              </span>
            )
          )}
          {settings}
          <HelpSheet />
          <ThemeControl />
        </div>
        {menu}
        <div
          id={statusId}
          className={`${phoneShown} order-3 w-full flex-wrap items-center gap-x-3 gap-y-1 sm:flex`}
        >
          {children}
          {model}
        </div>
      </div>
    </header>
  );
}
