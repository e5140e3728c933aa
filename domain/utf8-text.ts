/**
 * UTF-8 sizes and clipping, pure (TextEncoder only), one place for every limit counted in bytes: trace capture and
 * reads (domain/traces), commit messages (domain/git-review-actions), the terminal's input (web/src/api).
 * Lone surrogates count as the 3 bytes of U+FFFD, as an encoder writes them.
 */

const encoder = new TextEncoder();

/** The UTF-8 size of `text`. */
export function utf8Length(text: string): number {
  // Fast path: every UTF-16 unit is at most 3 UTF-8 bytes, and ASCII-only text is one byte per unit.
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4;
        i++;
      } else bytes += 3;
    } else bytes += 3;
  }
  return bytes;
}

export interface Clipped {
  text: string;
  /** The original's UTF-8 size. */
  bytes: number;
  clipped: boolean;
}

/** `text` cut to at most `maxBytes` UTF-8 bytes, on a character boundary. */
export function clipUtf8(text: string, maxBytes: number): Clipped {
  if (text.length * 3 <= maxBytes) return { text, bytes: utf8Length(text), clipped: false };
  const bytes = utf8Length(text);
  if (bytes <= maxBytes) return { text, bytes, clipped: false };
  const buffer = new Uint8Array(maxBytes);
  const { read } = encoder.encodeInto(text, buffer);
  return { text: text.slice(0, read), bytes, clipped: true };
}
