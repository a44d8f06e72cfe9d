// The control classes of @arbor/ui (packages/ui/src/styles.ts, not exported by the package), so
// the app's own buttons and inputs look and focus like the components' ones.

const base =
  "inline-flex items-center justify-center gap-1 rounded-md px-3 py-1.5 text-sm font-medium focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-sky-500 disabled:cursor-not-allowed disabled:opacity-50";

export const buttonClass = {
  primary: `${base} bg-sky-700 text-white hover:bg-sky-800 dark:bg-sky-500 dark:text-zinc-950 dark:hover:bg-sky-400`,
  secondary: `${base} border border-zinc-300 bg-white text-zinc-800 hover:bg-zinc-100 dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-100 dark:hover:bg-zinc-800`,
  ghost: `${base} text-zinc-600 hover:bg-zinc-100 dark:text-zinc-300 dark:hover:bg-zinc-800`,
} as const;

export const inputClass =
  "w-full rounded-md border border-zinc-300 bg-white px-2 py-1.5 text-sm text-zinc-900 focus-visible:outline-2 focus-visible:outline-sky-500 dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-100";
