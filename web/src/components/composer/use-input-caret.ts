/**
 * The prompt input's caret as state, for what depends on where the person is typing (the `@file` mention at the
 * caret). `sync` reads it from the input (on input, keyup, click and focus); a draft changed from code (sent, taken
 * back, offered) is read again once the input shows it. `place` sets the draft and the caret together (a
 * completion chosen, an offer taken); it leaves the focus where it is (a command run meanwhile may have moved it
 * to a picker): callers that want the input focused say so.
 */
import { nextTick, ref, watch, type Ref } from "vue";

export function useInputCaret(text: Ref<string>, input: Ref<HTMLTextAreaElement | null>) {
  const caret = ref(0);
  /** Where `place` puts the caret, until the input shows the new draft. */
  let placing: number | null = null;

  function sync(): void {
    const element = input.value;
    caret.value = element === null ? text.value.length : (element.selectionStart ?? text.value.length);
  }

  watch(
    text,
    () => {
      if (placing === null) sync();
    },
    { flush: "post" },
  );

  /** Sets the draft and puts the caret at `at` (default: the end); `focus` also focuses the input. */
  function place(next: string, at = next.length, options: { focus?: boolean } = {}): void {
    placing = at;
    text.value = next;
    caret.value = at;
    void nextTick(() => {
      placing = null;
      const element = input.value;
      if (element === null) return;
      if (options.focus === true) element.focus();
      element.setSelectionRange(at, at);
      caret.value = at;
    });
  }

  return { caret, sync, place };
}

export type InputCaret = ReturnType<typeof useInputCaret>;
