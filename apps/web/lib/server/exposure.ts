// Whether this server answers beyond loopback, for the sandbox's fail-closed rule (core
// sandboxGate): without a working sandbox, no tool process starts on a server others can reach.
//
// `next start --hostname ${HOST:-127.0.0.1}` binds HOST (package.json), so a HOST that is not a
// loopback address (0.0.0.0, ::, a LAN address, a name) serves beyond this machine. A loopback
// HOST with ARBOR_ALLOWED_HOSTS set answers to other names too: a reverse proxy or a tunnel in
// front of it, which is beyond loopback just the same.

type Env = Readonly<Record<string, string | undefined>>;

/** localhost, 127.0.0.0/8, ::1 (with or without brackets). */
export function isLoopbackHost(host: string): boolean {
  const name = host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, "$1");
  return (
    name === "localhost" ||
    name === "::1" ||
    /^127(?:\.(?:25[0-5]|2[0-4]\d|1?\d?\d)){3}$/.test(name) ||
    /^::ffff:127(?:\.\d{1,3}){3}$/.test(name)
  );
}

export function servingBeyondLoopback(env: Env): boolean {
  const host = env.HOST?.trim() || "127.0.0.1";
  if (!isLoopbackHost(host)) return true;
  return (env.ARBOR_ALLOWED_HOSTS ?? "").split(",").some((entry) => entry.trim() !== "");
}
