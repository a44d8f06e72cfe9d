import { completeText } from "../llm/complete-text.js";
import type { StreamProvider } from "../llm/provider.js";
import type { ModelConfig } from "../model/llm-config.js";

// A session's title. From the first message at once (what the offline model can do: its first
// sentence without the pleasantries, cut at a word), then, with a real model, one the model writes
// after the first answer — unless the user has named the session meanwhile.

export const TITLE_CHARS = 48;

const FILLER =
  /^(?:(?:hi|hello|hey)[,!.]\s*|(?:please|pls)\b[,]?\s*|(?:can|could|would|will) you\s+(?:please\s+)?|i(?:'d| would) like you to\s+|i want you to\s+)+/i;

/** A short title from a user's text: its first sentence or line, without filler, cut at a word. */
export function shortTitle(text: string): string | undefined {
  const line = text.trim().split(/\r?\n/, 1)[0]?.replace(/\s+/g, " ").trim() ?? "";
  const sentence = (line.match(/^.*?[.?!](?=\s|$)/)?.[0] ?? line).replace(/[.?!]+$/, "");
  const bare = sentence.replace(FILLER, "").trim() || sentence.trim();
  if (bare === "") return undefined;
  const title = bare[0]?.toUpperCase() + bare.slice(1);
  if (title.length <= TITLE_CHARS) return title;
  const cut = title.slice(0, TITLE_CHARS);
  const space = cut.lastIndexOf(" ");
  return `${(space > TITLE_CHARS / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

export const TITLE_SYSTEM_PROMPT =
  "You name conversations. Answer with a title of 2 to 6 words for the conversation you are shown: no quotes, no final punctuation, no preamble.";

/** The model's title for a conversation that began with `question` and `answer`. */
export async function modelTitle(
  options: { provider: StreamProvider; model: ModelConfig; question: string; answer: string },
  signal: AbortSignal,
): Promise<string> {
  const clip = (text: string) => (text.length > 2_000 ? `${text.slice(0, 2_000)}…` : text);
  const text = await completeText(
    {
      provider: options.provider,
      model: options.model,
      systemPrompt: TITLE_SYSTEM_PROMPT,
      prompt: `User: ${clip(options.question)}\n\nAssistant: ${clip(options.answer)}\n\nTitle:`,
      maxTokens: 30,
    },
    signal,
  );
  const title = (text.split("\n", 1)[0] ?? "")
    .replace(/^title:\s*/i, "")
    .replace(/^["'“”‘’*#\s]+|["'“”‘’*.\s]+$/g, "")
    .trim();
  if (title === "") throw new Error("the model's title was empty");
  return title.length <= 80 ? title : `${title.slice(0, 79).trimEnd()}…`;
}
