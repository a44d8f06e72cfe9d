import { type Logger, REDACTED, redact, SECRET_NAME, secretsFromEnv } from "@arbor/core";

// The server's logger. Keys must never reach a log line, whoever writes it (a provider error that
// echoes a header, a stack with a URL): every line is scrubbed of the secret values found in the
// environment, and fields whose name looks secret are replaced wholesale.

// The secret-finding rules (secretsFromEnv, redact) live in the core: the tool layer redacts tool
// output with the same ones.

type Env = Record<string, string | undefined>;

function redactFields(
  fields: Record<string, unknown>,
  secrets: readonly string[],
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(fields)) {
    if (SECRET_NAME.test(name)) {
      out[name] = REDACTED;
      continue;
    }
    const text =
      value instanceof Error ? value.message : typeof value === "string" ? value : undefined;
    if (text !== undefined) {
      out[name] = redact(text, secrets);
      continue;
    }
    // structured values: scrub their JSON so nested secrets cannot slip through
    try {
      const json = JSON.stringify(value);
      out[name] = json === undefined ? value : JSON.parse(redact(json, secrets));
    } catch {
      out[name] = redact(String(value), secrets);
    }
  }
  return out;
}

export interface LogSink {
  debug(line: string): void;
  info(line: string): void;
  warn(line: string): void;
  error(line: string): void;
}

const consoleSink: LogSink = {
  debug: (line) => console.debug(line),
  info: (line) => console.info(line),
  warn: (line) => console.warn(line),
  error: (line) => console.error(line),
};

/** A Logger writing one line per entry (`[arbor] message {fields}`), with secrets scrubbed. */
export function createRedactingLogger(
  options: {
    env?: Env;
    sink?: LogSink;
    debug?: boolean;
    secrets?: Iterable<string>;
    /** secrets that come and go while the server runs (provider keys kept in Settings) */
    liveSecrets?: () => readonly string[];
  } = {},
): Logger {
  const fixed = secretsFromEnv(options.env ?? process.env, options.secrets);
  const live = options.liveSecrets;
  const secretsNow = (): readonly string[] =>
    live === undefined ? fixed : secretsFromEnv({}, [...fixed, ...live()]);
  const sink = options.sink ?? consoleSink;
  const line = (message: string, fields?: Record<string, unknown>): string => {
    const secrets = secretsNow();
    const rest =
      fields && Object.keys(fields).length > 0
        ? ` ${JSON.stringify(redactFields(fields, secrets))}`
        : "";
    return `[arbor] ${redact(message, secrets)}${rest}`;
  };
  return {
    debug: (message, fields) => {
      if (options.debug) sink.debug(line(message, fields));
    },
    info: (message, fields) => sink.info(line(message, fields)),
    warn: (message, fields) => sink.warn(line(message, fields)),
    error: (message, fields) => sink.error(line(message, fields)),
  };
}
