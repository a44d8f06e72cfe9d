"use client";

import type { BodyOf } from "@arbor/core/browser";
import { useId, useState } from "react";
import { buttonClass, inputClass } from "../styles.js";

export interface QuestionCardProps {
  messageId: string;
  body: BodyOf<"question">;
  /** offered while the session waits for this answer */
  onAnswer?: ((messageId: string, answer: string) => void) | undefined;
}

export function QuestionCard({ messageId, body, onAnswer }: QuestionCardProps) {
  const [answered, setAnswered] = useState(false);
  const [text, setText] = useState("");
  const inputId = useId();
  const answer = (value: string) => {
    if (!onAnswer || answered) return;
    setAnswered(true);
    onAnswer(messageId, value);
  };
  return (
    <section aria-label="Question" className="flex flex-col gap-2">
      <p className="text-sm font-medium whitespace-pre-wrap">{body.question}</p>
      {onAnswer && body.choices.length > 0 && (
        <fieldset className="flex flex-wrap gap-2">
          <legend className="sr-only">Choices</legend>
          {body.choices.map((choice) => (
            <button
              key={choice}
              type="button"
              className={buttonClass.secondary}
              disabled={answered}
              onClick={() => answer(choice)}
            >
              {choice}
            </button>
          ))}
        </fieldset>
      )}
      {onAnswer && body.allow_free_text && (
        <form
          className="flex flex-col gap-2 sm:flex-row"
          onSubmit={(event) => {
            event.preventDefault();
            if (text.trim() !== "") answer(text.trim());
          }}
        >
          <label htmlFor={inputId} className="sr-only">
            Your answer
          </label>
          <input
            id={inputId}
            className={inputClass}
            value={text}
            disabled={answered}
            placeholder="Your answer"
            onChange={(event) => setText(event.target.value)}
          />
          <button
            type="submit"
            className={buttonClass.primary}
            disabled={answered || text.trim() === ""}
          >
            Send answer
          </button>
        </form>
      )}
    </section>
  );
}
