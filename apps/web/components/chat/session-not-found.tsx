import Link from "next/link";

/** What an unknown (or deleted) session's page says, from the server at once or after a 404. */
export function SessionNotFound() {
  return (
    <main className="mx-auto flex max-w-xl flex-col gap-3 p-6">
      <h1 className="text-lg font-semibold">Session not found</h1>
      <p className="text-sm text-zinc-600 dark:text-zinc-400">
        It may have been deleted. <Link href="/">Back to the sessions</Link>
      </p>
    </main>
  );
}
