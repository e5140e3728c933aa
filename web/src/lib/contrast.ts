/**
 * WCAG 2 contrast of the design tokens (style.css): relative luminance of sRGB colours and the contrast
 * ratio of two colours; and a reader of the `--name: #hex` tokens of a CSS block, so a test can check that
 * every text/background pair of both themes keeps AA contrast (4.5:1 for normal text).
 */

function channel(value: number): number {
  const c = value / 255;
  return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
}

/** #rgb or #rrggbb → [r, g, b], or null. */
export function parseHex(hex: string): [number, number, number] | null {
  const m = /^#([0-9a-f]{3}|[0-9a-f]{6})$/i.exec(hex.trim());
  if (!m?.[1]) return null;
  const digits = m[1].length === 3 ? [...m[1]].map((d) => d + d).join("") : m[1];
  return [0, 2, 4].map((i) => parseInt(digits.slice(i, i + 2), 16)) as [number, number, number];
}

export function relativeLuminance(hex: string): number {
  const rgb = parseHex(hex);
  if (rgb === null) throw new Error(`not a hex colour: ${hex}`);
  const [r, g, b] = rgb.map(channel) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

export function contrastRatio(a: string, b: string): number {
  const [hi, lo] = [relativeLuminance(a), relativeLuminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

/** The hex-valued custom properties declared in the first block whose selector is exactly `selector`. */
export function hexTokens(css: string, selector: string): Record<string, string> {
  const start = css.indexOf(`${selector} {`);
  if (start === -1) return {};
  const end = css.indexOf("}", start);
  const block = css.slice(start, end);
  const tokens: Record<string, string> = {};
  for (const match of block.matchAll(/(--[a-z0-9-]+):\s*(#[0-9a-f]{3,6})\s*;/gi)) {
    if (match[1] && match[2]) tokens[match[1]] = match[2];
  }
  return tokens;
}
