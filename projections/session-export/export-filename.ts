/**
 * The file name of a session export and its Content-Disposition header (RFC 6266 with an RFC 8187
 * `filename*`): `leyline-<slug>-<id8>.html`, where the slug comes from the session name, else the first
 * message, else "session". `filename` is an ASCII fallback (diacritics dropped, other characters → "-");
 * `filename*` keeps letters and digits of any script. Neither can hold quotes, slashes, controls or dots
 * beyond the extension.
 */
import { NO_MESSAGES } from "../../domain/session-summary.ts";

export interface ExportFileNames {
  /** Unicode letters and digits kept (for `filename*`). */
  fileName: string;
  /** ASCII only (for `filename`). */
  asciiFileName: string;
}

const SLUG_LIMIT = 60;

function cut(text: string, limit: number): string {
  return Array.from(text).slice(0, limit).join("").replace(/-+$/, "");
}

function unicodeSlug(text: string): string {
  return cut(
    text
      .normalize("NFKC")
      .toLowerCase()
      .replace(/[^\p{L}\p{N}]+/gu, "-")
      .replace(/^-+|-+$/g, ""),
    SLUG_LIMIT,
  );
}

function asciiSlug(text: string): string {
  return cut(
    text
      .normalize("NFKD")
      .replace(/\p{M}+/gu, "")
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-+|-+$/g, ""),
    SLUG_LIMIT,
  );
}

/** The export file names of a session. */
export function exportFileNames(session: { id: string; name?: string; firstMessage: string }): ExportFileNames {
  const name = session.name?.trim() ?? "";
  const first = session.firstMessage.trim() === NO_MESSAGES ? "" : session.firstMessage;
  const base = name !== "" ? name : first;
  const id8 =
    session.id
      .replace(/[^A-Za-z0-9]/g, "")
      .slice(0, 8)
      .toLowerCase() || "unknown";
  const unicode = unicodeSlug(base) || "session";
  const ascii = asciiSlug(base) || "session";
  return { fileName: `leyline-${unicode}-${id8}.html`, asciiFileName: `leyline-${ascii}-${id8}.html` };
}

/** RFC 8187 value characters: attr-char stays, everything else is percent-encoded UTF-8. */
function encodeExtValue(text: string): string {
  return encodeURIComponent(text).replace(/['()*]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** `inline` for disposition=inline, `attachment` for anything else (spec: Export route). */
export function exportDispositionType(disposition: string | undefined): "inline" | "attachment" {
  return disposition === "inline" ? "inline" : "attachment";
}

/** The Content-Disposition header value. */
export function exportContentDisposition(type: "inline" | "attachment", names: ExportFileNames): string {
  return `${type}; filename="${names.asciiFileName}"; filename*=UTF-8''${encodeExtValue(names.fileName)}`;
}
