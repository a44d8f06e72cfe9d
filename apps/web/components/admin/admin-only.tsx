/** What a person who is neither the owner nor an admin sees on an admin page. */
export function AdminOnly() {
  return (
    <p role="alert" className="text-sm text-zinc-700 dark:text-zinc-300">
      Only the owner and admins see this page. Ask one of them if you need it.
    </p>
  );
}
