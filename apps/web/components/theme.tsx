"use client";

import { type Theme, ThemeToggle } from "@arbor/ui";
import { useEffect, useState } from "react";

import { THEME_KEY } from "./theme-boot";

/** The dark-mode toggle, persisting the choice for THEME_BOOT to apply on the next load. */
export function ThemeControl() {
  // The server cannot know the theme; rendering the toggle only in the browser keeps hydration
  // from disagreeing about its icon and pressed state.
  const [mounted, setMounted] = useState(false);
  useEffect(() => setMounted(true), []);
  if (!mounted) return <span className="inline-block size-8" aria-hidden="true" />;
  return (
    <ThemeToggle
      onThemeChange={(theme: Theme) => {
        try {
          localStorage.setItem(THEME_KEY, theme);
        } catch {
          // private mode or storage full: the choice lasts for this page only
        }
      }}
    />
  );
}

/** The theme <html> carries (THEME_BOOT and the toggle set its "dark" class), kept current. */
export function useDocumentTheme(): Theme {
  const [theme, setTheme] = useState<Theme>("light");
  useEffect(() => {
    const root = document.documentElement;
    const read = () => setTheme(root.classList.contains("dark") ? "dark" : "light");
    read();
    const observer = new MutationObserver(read);
    observer.observe(root, { attributes: true, attributeFilter: ["class"] });
    return () => observer.disconnect();
  }, []);
  return theme;
}
