import "../../markdown/dom-node-name.fixture.ts";
import { flushPromises, mount } from "@vue/test-utils";
import { describe, expect, it } from "vitest";
import { loadMarkdownRenderer } from "../../markdown/load-markdown.ts";
import TranscriptEntryRow from "../transcript/TranscriptEntryRow.vue";
import { userEntry } from "../transcript/transcript.fixture.ts";
import AppIcon, { ICON_PATHS, type IconName } from "./AppIcon.vue";

/**
 * Symbols that served as icons in templates: several (⧉ copy, ⑂ fork) are missing from common system fonts
 * and render as empty boxes in Chromium. Icons are AppIcon's inline SVG; text arrows in prose (→) are fine.
 */
const ICON_GLYPHS = /[⧉⑂⟲⎘✎✏✕✖×▸▾▴◂▶▼⚡↰↱↑↓✓✔]/u;

/** Every component's template (the part of a .vue file between <template> and its closing tag). */
const sources = import.meta.glob("../../**/*.vue", { query: "?raw", import: "default", eager: true }) as Record<string, string>;

function templateOf(source: string): string {
  const start = source.indexOf("<template>");
  const end = source.lastIndexOf("</template>");
  return start === -1 || end === -1 ? "" : source.slice(start, end);
}

describe("AppIcon", () => {
  it("draws every icon as a decorative inline SVG path in the current colour", () => {
    for (const name of Object.keys(ICON_PATHS) as IconName[]) {
      const wrapper = mount(AppIcon, { props: { name, size: 12 } });
      const svg = wrapper.get("svg");
      expect(svg.attributes("aria-hidden")).toBe("true");
      expect(svg.attributes("width")).toBe("12");
      expect(svg.attributes("stroke")).toBe("currentColor");
      expect(svg.get("path").attributes("d")).toBe(ICON_PATHS[name]);
      wrapper.unmount();
    }
  });

  it("is what the transcript's entry actions show (no font glyphs)", async () => {
    await loadMarkdownRenderer();
    const wrapper = mount(TranscriptEntryRow, {
      props: { entry: userEntry("u1", "Is it efficient?"), busy: false, isThinkingOpen: () => false },
    });
    await flushPromises();
    for (const action of ["entry-copy", "entry-edit", "entry-fork", "entry-reset"]) {
      const button = wrapper.get(`[data-test=${action}]`);
      expect(button.find("svg.app-icon").exists(), action).toBe(true);
      expect(button.text(), action).toBe("");
      expect(button.attributes("aria-label"), action).not.toBe("");
    }
    expect(wrapper.get("[data-test=entry-fork] svg").attributes("data-icon")).toBe("fork");
    wrapper.unmount();
  });

  it("no component template uses a symbol character as an icon", () => {
    const files = Object.keys(sources);
    expect(files.length).toBeGreaterThan(20);
    const offenders = files.flatMap((file) => {
      const template = templateOf(sources[file] ?? "");
      return template
        .split("\n")
        .filter((line) => ICON_GLYPHS.test(line))
        .map((line) => `${file}: ${line.trim()}`);
    });
    expect(offenders).toEqual([]);
  });
});
