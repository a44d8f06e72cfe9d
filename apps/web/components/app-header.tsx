"use client";

import { HelpSheet } from "@arbor/ui";
import Link from "next/link";
import type { ReactNode } from "react";
import { ArborLogo } from "./icons";
import { ThemeControl } from "./theme";

export interface AppHeaderProps {
  /** what follows the brand, e.g. the page's title */
  title?: ReactNode;
  children?: ReactNode;
  /** the landing page: the brand is the page's top heading */
  brandHeading?: boolean;
  /** line up with a page whose content is wide (tables) rather than a reading column */
  wide?: boolean;
}

/** The bar on the list and admin pages: brand, navigation, help and theme. */
export function AppHeader({ title, children, brandHeading = false, wide = false }: AppHeaderProps) {
  const Brand = brandHeading ? "h1" : "span";
  return (
    <header className="sticky top-0 z-20 border-b border-zinc-200 bg-white/90 backdrop-blur dark:border-zinc-800 dark:bg-zinc-900/90">
      <div
        className={`mx-auto flex items-center gap-2 px-3 py-2 sm:px-4 ${wide ? "max-w-5xl" : "max-w-3xl"}`}
      >
        <Brand className="flex items-center font-semibold tracking-tight text-zinc-900 dark:text-zinc-50">
          <Link href="/" className="inline-flex items-center gap-1.5">
            <ArborLogo />
            Arbor
          </Link>
        </Brand>
        {title && (
          <span className="truncate text-sm text-zinc-500 dark:text-zinc-400">{title}</span>
        )}
        <nav aria-label="Main" className="ml-auto flex items-center gap-1">
          {children}
          <Link
            href="/admin"
            className="rounded-md px-2 py-1.5 text-sm text-zinc-600 hover:bg-zinc-100 dark:text-zinc-300 dark:hover:bg-zinc-800"
          >
            Admin
          </Link>
          <Link
            href="/settings/account"
            className="rounded-md px-2 py-1.5 text-sm text-zinc-600 hover:bg-zinc-100 dark:text-zinc-300 dark:hover:bg-zinc-800"
          >
            Account
          </Link>
          <HelpSheet />
          <ThemeControl />
        </nav>
      </div>
    </header>
  );
}
