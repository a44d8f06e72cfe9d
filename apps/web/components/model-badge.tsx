export interface ModelSummary {
  name: string;
  protocol: string;
  offline: boolean;
  problem?: string;
}

/** Which model answers: the configured one, or the offline model when no key is set. */
export function ModelBadge({ model }: { model: ModelSummary }) {
  if (model.problem) {
    return (
      <p
        role="alert"
        className="rounded-lg border border-red-300 bg-red-50 px-3 py-2 text-sm text-red-800 dark:border-red-900 dark:bg-red-950/50 dark:text-red-200"
      >
        The model is not configured: {model.problem}
      </p>
    );
  }
  return (
    <p
      data-testid="active-model"
      className="rounded-lg border border-zinc-200 bg-white px-3 py-2 text-sm text-zinc-700 dark:border-zinc-800 dark:bg-zinc-900 dark:text-zinc-300"
    >
      Model: <span className="font-medium text-zinc-900 dark:text-zinc-100">{model.name}</span>{" "}
      <span className="text-zinc-500">({model.protocol})</span>
      {model.offline && (
        <span className="mt-1 block text-xs text-zinc-500 dark:text-zinc-400">
          No provider key is set, so Arbor answers with its built-in offline model. To use a real
          one, an admin adds a key in{" "}
          <a href="/settings/providers" className="text-sky-700 underline dark:text-sky-300">
            Settings › Model providers
          </a>{" "}
          (no restart), or sets ANTHROPIC_API_KEY, OPENAI_API_KEY or GOOGLE_GENERATIVE_AI_API_KEY
          and restarts.
        </span>
      )}
    </p>
  );
}
