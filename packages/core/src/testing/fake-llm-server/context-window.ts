import type { ScriptedError } from "../script.js";
import type { FakeProtocol } from "./types.js";

// A model's context window, as the fake enforces it (issue #26 finding 4): a request whose input
// (estimated as usage is: request-body.ts estimateInputTokens) is larger than the window is
// refused as the provider itself refuses it — its status and its own words — without taking a
// scripted turn, so a test can let a conversation outgrow the window and watch the client recover.
// The texts are the providers' own (each is one of llm/errors.ts CONTEXT_OVERFLOW_PHRASES):
//   Anthropic  400 invalid_request_error "prompt is too long: N tokens > M maximum"
//   OpenAI     400 invalid_request_error, code context_length_exceeded, "This model's maximum
//              context length is M tokens. However, your messages resulted in N tokens. …"
//   Gemini     400 INVALID_ARGUMENT "The input token count (N) exceeds the maximum number of
//              tokens allowed (M)."
//   Bedrock    400 ValidationException "Input is too long for requested model."

/** The provider's refusal of a request of `tokens` input tokens in a window of `window`. */
export function contextOverflowError(
  protocol: Exclude<FakeProtocol, "anthropic-count-tokens">,
  tokens: number,
  window: number,
): ScriptedError {
  switch (protocol) {
    case "anthropic-messages":
      return { status: 400, message: `prompt is too long: ${tokens} tokens > ${window} maximum` };
    case "openai-chat":
    case "openai-responses":
    case "azure-openai-responses": {
      const message = `This model's maximum context length is ${window} tokens. However, your messages resulted in ${tokens} tokens. Please reduce the length of the messages.`;
      return {
        status: 400,
        message,
        body: JSON.stringify({
          error: {
            message,
            type: "invalid_request_error",
            param: "messages",
            code: "context_length_exceeded",
          },
        }),
      };
    }
    case "google-gemini":
    case "google-vertex":
      return {
        status: 400,
        message: `The input token count (${tokens}) exceeds the maximum number of tokens allowed (${window}).`,
      };
    case "bedrock-converse":
      return { status: 400, message: "Input is too long for requested model." };
    default:
      return protocol satisfies never;
  }
}
