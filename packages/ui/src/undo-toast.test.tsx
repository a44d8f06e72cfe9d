import { act, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { UndoToast } from "./undo-toast.js";

describe("UndoToast", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  const shown = () => {
    const onExpire = vi.fn();
    const onUndo = vi.fn();
    render(
      <UndoToast
        message="Deleted “Notes”"
        durationMs={10_000}
        onUndo={onUndo}
        onExpire={onExpire}
      />,
    );
    return { onExpire, onUndo, notice: screen.getByRole("status") };
  };

  it("expires after its time when left alone", () => {
    const { onExpire } = shown();
    act(() => vi.advanceTimersByTime(9_999));
    expect(onExpire).not.toHaveBeenCalled();
    act(() => vi.advanceTimersByTime(1));
    expect(onExpire).toHaveBeenCalledOnce();
  });

  it("waits while hovered and goes on with the time that was left", () => {
    const { onExpire, notice } = shown();
    act(() => vi.advanceTimersByTime(4_000));
    fireEvent.mouseEnter(notice);
    act(() => vi.advanceTimersByTime(60_000));
    expect(onExpire).not.toHaveBeenCalled();
    fireEvent.mouseLeave(notice);
    act(() => vi.advanceTimersByTime(5_900));
    expect(onExpire).not.toHaveBeenCalled();
    act(() => vi.advanceTimersByTime(100));
    expect(onExpire).toHaveBeenCalledOnce();
  });

  it("waits while Undo has the focus; Undo undoes", () => {
    const { onExpire, onUndo } = shown();
    const undo = screen.getByRole("button", { name: "Undo" });
    act(() => undo.focus());
    act(() => vi.advanceTimersByTime(60_000));
    expect(onExpire).not.toHaveBeenCalled();
    fireEvent.click(undo);
    expect(onUndo).toHaveBeenCalledOnce();
    act(() => undo.blur());
    act(() => vi.advanceTimersByTime(10_000));
    expect(onExpire).toHaveBeenCalledOnce();
  });
});
