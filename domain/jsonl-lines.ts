/**
 * Splitting JSONL text into complete lines. A session file may be read while pi is appending to it, so the
 * text after the last "\n" is a torn line: it is held back as `rest` (to be completed by a later read),
 * never decoded and never an error.
 */

/**
 * Splits `text` into its complete lines (without the "\n"; a trailing "\r" is dropped too) and the `rest`
 * after the last "\n" (possibly ""). Prepend `rest` to the next chunk of text to continue.
 */
export function splitCompleteLines(text: string): { lines: string[]; rest: string } {
  const lines = text.split("\n");
  const rest = lines.pop() ?? "";
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    if (line.charCodeAt(line.length - 1) === 13) lines[i] = line.slice(0, -1);
  }
  return { lines, rest };
}
