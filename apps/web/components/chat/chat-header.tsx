"use client";

import { HelpSheet } from "@arbor/ui";
import Link from "next/link";
import type { ReactNode } from "react";
import { ArborLogo, BranchIcon } from "../icons";
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
  /** the status row: state line, usage meter, view switch */
  children: ReactNode;
}

/** Two rows: navigation and session tools, then the live status. Wraps at phone width. */
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
  children,
}: ChatHeaderProps) {
  return (
    <header className="sticky top-0 z-20 border-b border-zinc-200 bg-white/95 backdrop-blur dark:border-zinc-800 dark:bg-zinc-900/95">
      <div className="mx-auto flex max-w-7xl items-center gap-1 px-3 pt-2 sm:gap-2 sm:px-4">
        <Link
          href="/"
          aria-label="All sessions"
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
        {onToggleBranches !== undefined ? (
          <button
            type="button"
            className={buttonClass.ghost}
            aria-pressed={branchesOpen}
            onClick={onToggleBranches}
            // the count and the current branch are in the name at every width
            aria-label={`Branches · ${branchCount}${activeBranchName ? `, current branch ${activeBranchName}` : ""}`}
            title={activeBranchName ? `Current branch: ${activeBranchName}` : undefined}
          >
            <BranchIcon />
            {activeBranchName ? (
              <span data-testid="current-branch" className="max-w-[7rem] truncate sm:max-w-[12rem]">
                {activeBranchName}
              </span>
            ) : (
              <span>Branches</span>
            )}
            <span className="hidden text-zinc-500 sm:inline dark:text-zinc-400">
              · {branchCount}
            </span>
          </button>
        ) : (
          activeBranchName && (
            <span
              className="inline-flex min-w-0 items-center gap-1 text-sm text-zinc-600 dark:text-zinc-300"
              title={`Current branch: ${activeBranchName}`}
            >
              <BranchIcon />
              <span data-testid="current-branch" className="max-w-[7rem] truncate sm:max-w-[12rem]">
                {activeBranchName}
              </span>
            </span>
          )
        )}
        {settings}
        {menu}
        <HelpSheet />
        <ThemeControl />
      </div>
      <div className="mx-auto flex max-w-7xl flex-wrap items-center gap-x-3 gap-y-1 px-3 pb-2 pt-1 sm:px-4">
        {children}
        {model}
      </div>
    </header>
  );
}
