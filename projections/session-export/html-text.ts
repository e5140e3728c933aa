/**
 * HTML text helpers of the session export: every piece of session data goes through `escapeHtml` (text and
 * attribute values alike), links only to http(s) URLs or in-page anchors, images only as data: URIs.
 */

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

/** Text or an attribute value (double- or single-quoted) as HTML. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => ESCAPES[char] ?? char);
}

/** An http(s) URL that may be used as a link target (whitespace-free, parseable), else null. */
export function httpUrl(value: string): string | null {
  const trimmed = value.trim();
  if (!/^https?:\/\//i.test(trimmed) || /\s/.test(trimmed)) return null;
  try {
    return new URL(trimmed).href;
  } catch {
    return null;
  }
}

/** `<a href>` to an http(s) URL (opens outside the document), or the escaped text when the URL is not one. */
export function externalLink(url: string, text: string = url): string {
  const href = httpUrl(url);
  if (href === null) return escapeHtml(text);
  return `<a href="${escapeHtml(href)}" rel="noopener noreferrer">${escapeHtml(text)}</a>`;
}

const IMAGE_TYPES = new Set(["image/png", "image/jpeg", "image/gif", "image/webp"]);

/** A `data:` URI for a base64 image of an allowed type, else null (the export never requests anything). */
export function imageDataUri(mimeType: string, data: string): string | null {
  const type = mimeType.trim().toLowerCase();
  const base64 = data.replace(/\s+/g, "");
  if (!IMAGE_TYPES.has(type) || base64 === "" || !/^[A-Za-z0-9+/]+={0,2}$/.test(base64)) return null;
  return `data:${type};base64,${base64}`;
}

/** An `<img>` of a base64 image, or a note when the image cannot be embedded. */
export function embeddedImage(mimeType: string, data: string, alt: string): string {
  const uri = imageDataUri(mimeType, data);
  if (uri === null) return `<p class="muted">[image omitted: ${escapeHtml(mimeType || "unknown type")}]</p>`;
  return `<img class="embedded" src="${uri}" alt="${escapeHtml(alt)}">`;
}

/** An ISO time for ms since the epoch ("" for 0 or an invalid time). */
export function isoTime(ms: number): string {
  if (!Number.isFinite(ms) || ms <= 0) return "";
  const date = new Date(ms);
  return Number.isNaN(date.getTime()) ? "" : date.toISOString();
}

/** A value as an HTML id fragment: letters, digits, `-` and `_` only. */
export function idFragment(value: string): string {
  return value.replace(/[^A-Za-z0-9_-]+/g, "-").replace(/^-+|-+$/g, "");
}
