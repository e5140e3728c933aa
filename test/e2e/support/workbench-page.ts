/**
 * Page helpers for the workbench flows, written against the client's data-test contract
 * (/tmp/leyline-web-contract.md: `data-test` names and their data-* attributes). Every wait is on a selector,
 * an attribute or a page condition; none is on time.
 */
import type { Locator, Page } from "playwright-core";

/** The DOM the page functions below touch (they run in the page; the root tsconfig has no DOM library). */
interface PageElement {
  textContent: string | null;
  value?: string;
}
declare const document: {
  querySelector(selector: string): PageElement | null;
  querySelectorAll(selector: string): Iterable<PageElement>;
};

/** A `[data-test="name"]` selector, optionally with more attribute conditions. */
export function dt(name: string, attributes: Record<string, string> = {}): string {
  const extra = Object.entries(attributes)
    .map(([key, value]) => `[${key}="${value}"]`)
    .join("");
  return `[data-test="${name}"]${extra}`;
}

export type RunState = "idle" | "working" | "waiting" | "finished";

/** Waits until the composer's run state is one of `states`. */
export async function waitForRunState(page: Page, ...states: RunState[]): Promise<void> {
  await page.waitForSelector(states.map((state) => dt("run-state", { "data-state": state })).join(", "));
}

/** Types a prompt into the composer and presses its send (or queue) button. */
export async function sendPrompt(page: Page, text: string): Promise<void> {
  const input = page.locator(dt("composer-input"));
  await input.fill(text);
  await page.locator(dt("send")).click();
  // The composer clears its input once the server accepted the prompt.
  await page.waitForFunction((selector) => document.querySelector(selector)?.value === "", dt("composer-input"));
}

/** The transcript's message entries of a role, as text, in order. */
export function messageEntries(page: Page, role: "user" | "assistant"): Locator {
  return page.locator(`${dt("transcript")} ${dt("entry", { "data-entry-type": "message", "data-role": role })}`);
}

/** Waits for a message entry of `role` that contains `text`; returns it. */
export async function waitForMessage(page: Page, role: "user" | "assistant", text: string): Promise<Locator> {
  const entry = messageEntries(page, role).filter({ hasText: text }).first();
  await entry.waitFor();
  return entry;
}

/** The session id of a `/sessions/<id>` URL. */
export function sessionIdOf(url: string): string {
  const match = /\/sessions\/([^/?#]+)/.exec(new URL(url).pathname);
  if (match?.[1] === undefined) throw new Error(`not a session URL: ${url}`);
  return decodeURIComponent(match[1]);
}

/** Waits until the URL is a session page other than `except`; returns its session id. */
export async function waitForSessionUrl(page: Page, except?: string): Promise<string> {
  await page.waitForURL((url) => /^\/sessions\/[^/]+$/.test(url.pathname) && (except === undefined || sessionIdOf(url.href) !== except));
  return sessionIdOf(page.url());
}

/** Waits until the page's text content of `selector` (first match) is longer than `length` characters. */
export async function waitForLongerText(page: Page, selector: string, length: number): Promise<number> {
  const handle = await page.waitForFunction(
    ([sel, min]) => {
      const text = document.querySelector(sel)?.textContent ?? "";
      return text.length > min ? text.length : 0;
    },
    [selector, length] as const,
  );
  return (await handle.jsonValue()) as number;
}

/** The texts of the Up next queue items, in order. */
export async function queueTexts(page: Page): Promise<string[]> {
  return (await page.locator(dt("queue-item")).allTextContents()).map((text) => text.trim());
}

/** Waits until the Up next queue holds exactly items containing `texts`, in this order. */
export async function waitForQueue(page: Page, texts: readonly string[]): Promise<void> {
  await page.waitForFunction(
    ([selector, wanted]) => {
      const items = [...document.querySelectorAll(selector)].map((el) => el.textContent ?? "");
      return items.length === wanted.length && wanted.every((text, index) => items[index]?.includes(text) === true);
    },
    [dt("queue-item"), texts] as const,
  );
}

interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

async function boxOf(locator: Locator, what: string): Promise<Box> {
  const box = await locator.boundingBox();
  if (box === null) throw new Error(`${what} is not visible`);
  return box;
}

/**
 * Whether two controls sit on the same toolbar row (their vertical centres within 4 px), `b` after `a`, both
 * inside `container`. Returns a description of the layout when they do not, "" when they do.
 */
export async function sameRowProblem(a: Locator, b: Locator, container: Locator): Promise<string> {
  const [boxA, boxB, outer] = await Promise.all([boxOf(a, "first control"), boxOf(b, "second control"), boxOf(container, "container")]);
  const centre = (box: Box) => box.y + box.height / 2;
  const problems: string[] = [];
  if (Math.abs(centre(boxA) - centre(boxB)) > 4) problems.push(`rows differ: ${JSON.stringify(boxA)} vs ${JSON.stringify(boxB)}`);
  if (boxB.x < boxA.x + boxA.width - 1) problems.push("out of order");
  for (const box of [boxA, boxB]) {
    if (box.x < outer.x - 1 || box.x + box.width > outer.x + outer.width + 1)
      problems.push(`outside the container ${JSON.stringify(outer)}`);
  }
  return problems.join("; ");
}

/**
 * A sidebar row with its actions shown (hovered or open): its title and meta line end before the rename
 * button instead of running under it, and a long title ends in an ellipsis. Returns the problems found.
 */
export async function sidebarRowProblems(page: Page, sessionId: string): Promise<string[]> {
  const row = page.locator(dt("session-item", { "data-session-id": sessionId }));
  await row.hover();
  const rename = await boxOf(row.locator(dt("session-rename")), "the rename button");
  const problems: string[] = [];
  for (const part of [".title", ".meta"]) {
    const box = await boxOf(row.locator(part).first(), part);
    if (box.x + box.width > rename.x + 0.5) problems.push(`${part} (${box.x}+${box.width}) runs under the actions (${rename.x})`);
  }
  const clipped = await row
    .locator(".title")
    .first()
    .evaluate((el) => {
      const style = el.ownerDocument.defaultView?.getComputedStyle(el);
      return { overflows: el.scrollWidth > el.clientWidth, ellipsis: style?.textOverflow === "ellipsis" };
    });
  if (clipped.overflows && !clipped.ellipsis) problems.push("the title is cut without an ellipsis");
  return problems;
}

/** Elements inside `container` that stick out past its right edge (cut off or scrolled sideways), described. */
export async function overflowingRight(container: Locator): Promise<string[]> {
  interface Measured {
    tagName: string;
    getAttribute(name: string): string | null;
    getBoundingClientRect(): { left: number; right: number; width: number };
  }
  return container.evaluate((root) => {
    const outer = root.getBoundingClientRect();
    const limit = outer.left + root.clientWidth + 1;
    const found: string[] = [];
    for (const el of Array.from(root.querySelectorAll("*") as Iterable<Measured>)) {
      const box = el.getBoundingClientRect();
      if (box.width > 1 && box.right > limit)
        found.push(`${el.tagName.toLowerCase()}.${el.getAttribute("class") ?? ""} +${Math.round(box.right - limit)}px`);
    }
    return found.slice(0, 8);
  });
}
