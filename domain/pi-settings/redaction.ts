/**
 * Redaction for what Pi Settings shows: URLs without credentials and with their query and fragment values
 * hidden, base URLs that are safe to show as they are, links that are safe to offer, and known secrets
 * replaced wherever they occur in display text (spec "MCP inventory", "Provider inventory", "Settings
 * operations").
 *
 * Pure. URLs are judged by the WHATWG parser (the one `fetch` uses), so a form the parser reads as
 * credentials (`https:\\user@host`, a tab inside the user name) is treated as credentials here too.
 */

/** What a hidden value is shown as. */
export const REDACTED = "[redacted]";

function parseUrl(text: string): URL | undefined {
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}

function isHttp(url: URL): boolean {
  return url.protocol === "http:" || url.protocol === "https:";
}

/** Query parameters with their names kept and their values hidden; a parameter without `=` is hidden whole. */
function redactQuery(query: string): string {
  const parts = query
    .split("&")
    .filter((part) => part !== "")
    .map((part) => {
      const equals = part.indexOf("=");
      return equals > 0 ? `${part.slice(0, equals)}=${REDACTED}` : REDACTED;
    });
  return parts.length === 0 ? "" : `?${parts.join("&")}`;
}

/**
 * A URL for display: credentials removed, query values and the fragment redacted
 * (`https://x.dev/mcp?token=[redacted]#[redacted]`). A URL the parser rejects is cut by hand the same way,
 * dropping everything up to its last `@` before the query.
 */
export function displayUrl(url: string): string {
  const parsed = parseUrl(url);
  if (parsed === undefined) return roughDisplayUrl(url);
  const query = parsed.search;
  const fragment = parsed.hash;
  parsed.username = "";
  parsed.password = "";
  parsed.search = "";
  parsed.hash = "";
  return `${parsed.href}${redactQuery(query.slice(1))}${fragment.length > 1 ? `#${REDACTED}` : ""}`;
}

function roughDisplayUrl(text: string): string {
  const hashAt = text.indexOf("#");
  const fragment = hashAt >= 0 && hashAt < text.length - 1 ? `#${REDACTED}` : "";
  let rest = hashAt >= 0 ? text.slice(0, hashAt) : text;
  const queryAt = rest.indexOf("?");
  const query = queryAt >= 0 ? redactQuery(rest.slice(queryAt + 1)) : "";
  if (queryAt >= 0) rest = rest.slice(0, queryAt);
  const at = rest.lastIndexOf("@");
  if (at >= 0) {
    const scheme = /^[A-Za-z][A-Za-z0-9+.-]*:[/\\]*/.exec(rest)?.[0] ?? "";
    rest = `${scheme}${rest.slice(Math.max(at + 1, scheme.length))}`;
  }
  return `${rest}${query}${fragment}`;
}

/**
 * The URL as written when it is safe to show: HTTP or HTTPS with a host, without credentials, query, fragment
 * or surrounding whitespace. Anything else is "" (spec: "Unsafe base URLs appear as an empty string").
 */
export function safeBaseUrl(url: string): string {
  if (url === "" || url !== url.trim()) return "";
  const parsed = parseUrl(url);
  if (parsed === undefined || !isHttp(parsed) || parsed.hostname === "") return "";
  if (parsed.username !== "" || parsed.password !== "") return "";
  if (url.includes("?") || url.includes("#")) return "";
  // An empty user part (`https://@host`) parses without credentials; it is still credential syntax.
  if (/^[^:]*:[/\\]*[^/\\]*@/.test(url)) return "";
  return url;
}

/** Whether a link may be offered to the browser: HTTP or HTTPS without URL credentials (spec "Settings operations"). */
export function isPublicLink(url: string): boolean {
  const parsed = parseUrl(url);
  return parsed !== undefined && isHttp(parsed) && parsed.hostname !== "" && parsed.username === "" && parsed.password === "";
}

/**
 * Every occurrence of every nonempty secret replaced with `[redacted]`. One left-to-right pass that takes the
 * longest secret starting at each position, so overlapping secrets are hidden whole and the marker itself is
 * never searched again.
 */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  const candidates = [...new Set(secrets.filter((secret) => secret !== ""))].sort((a, b) => b.length - a.length);
  if (candidates.length === 0 || text === "") return text;
  let out = "";
  let plainFrom = 0;
  let index = 0;
  while (index < text.length) {
    const match = candidates.find((secret) => text.startsWith(secret, index));
    if (match === undefined) {
      index += 1;
      continue;
    }
    out += text.slice(plainFrom, index) + REDACTED;
    index += match.length;
    plainFrom = index;
  }
  return out + text.slice(plainFrom);
}

/** Whether a submitted value carries a redacted display value (refused as a replacement). */
export function containsRedaction(value: string): boolean {
  return value.includes(REDACTED);
}

/**
 * `value` with `redactSecrets` applied to every string in it (object keys and non-string leaves untouched), so
 * a secret that is also a number's digits cannot break the JSON around it. Returns a new value; `value` stays.
 */
export function redactStrings<T>(value: T, secrets: readonly string[]): T {
  if (secrets.length === 0) return value;
  const walk = (item: unknown): unknown => {
    if (typeof item === "string") return redactSecrets(item, secrets);
    if (Array.isArray(item)) return item.map(walk);
    if (typeof item === "object" && item !== null)
      return Object.fromEntries(Object.entries(item).map(([key, inner]) => [key, walk(inner)]));
    return item;
  };
  return walk(value) as T;
}
