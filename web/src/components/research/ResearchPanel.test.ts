import { flushPromises, mount, type VueWrapper } from "@vue/test-utils";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { createMemoryHistory, createRouter } from "vue-router";
import { defineComponent, h } from "vue";
import type { ResearchState } from "../../../../domain/research/research-types.ts";
import type { TranscriptEntry } from "../../../../domain/transcript/transcript-types.ts";
import { researchReportDetails } from "../../../../domain/transcript/research-transcript.ts";
import { loadMarkdownRenderer } from "../../markdown/load-markdown.ts";
import ResearchPanel from "./ResearchPanel.vue";
import {
  completedResearch,
  failedResearch,
  gatheringResearch,
  REPORT_MARKDOWN,
  RESEARCH_SESSION_ID,
  researchEntries,
} from "./research.fixture.ts";

const Stub = defineComponent({ render: () => h("div") });

let mounted: VueWrapper | null = null;

async function mountPanel(research: ResearchState, entries: TranscriptEntry[] = researchEntries()) {
  const router = createRouter({
    history: createMemoryHistory(),
    routes: [
      { path: "/", component: Stub },
      { path: "/sessions/:id", component: Stub },
    ],
  });
  await router.push("/");
  await router.isReady();
  mounted = mount(ResearchPanel, {
    props: { sessionId: RESEARCH_SESSION_ID, research, entries },
    global: { plugins: [router] },
    attachTo: document.body,
  });
  await flushPromises();
  return mounted;
}

function keydown(element: Element, key: string): void {
  element.dispatchEvent(new KeyboardEvent("keydown", { key, bubbles: true, cancelable: true }));
}

beforeAll(async () => {
  // MarkdownBlock renders plain text until its lazy chunk is loaded: load it once for every test.
  await loadMarkdownRenderer();
});

afterEach(() => {
  mounted?.unmount();
  mounted = null;
  document.body.innerHTML = "";
});

describe("ResearchPanel: phase bar", () => {
  it("shows the current phase of a running research", async () => {
    const wrapper = await mountPanel(gatheringResearch(), []);
    const bar = wrapper.get("[data-test=phase-bar]");
    expect(bar.attributes("data-phase")).toBe("gather");
    expect(bar.findAll("[data-step]").map((s) => `${s.attributes("data-step")}:${s.attributes("data-state")}`)).toEqual([
      "plan:done",
      "gather:current",
      "synthesize:upcoming",
      "report:upcoming",
    ]);
    expect(bar.get("[aria-current=step]").text()).toContain("Gather");
    const status = wrapper.get("[data-test=research-status]");
    expect(status.attributes("data-state")).toBe("running");
    expect(status.text()).toContain("Running · Gather");
    expect(status.text()).toContain("Three researchers started");
  });

  it("shows a failed research with its error text", async () => {
    const wrapper = await mountPanel(failedResearch(), []);
    expect(wrapper.get("[data-test=phase-bar]").attributes("data-phase")).toBe("synthesize");
    expect(wrapper.get("[data-step=synthesize]").attributes("data-state")).toBe("failed");
    const status = wrapper.get("[data-test=research-status]");
    expect(status.attributes("data-state")).toBe("error");
    expect(status.text()).toContain("Failed");
    expect(status.text()).toContain("Citation [7](https://nowhere.example) names no ledger source 7");
  });
});

describe("ResearchPanel: threads and the subagent inspector", () => {
  it("shows one chip per thread with its status and source count", async () => {
    const wrapper = await mountPanel(completedResearch());
    const chips = wrapper.findAll("[data-test=thread-chip]");
    expect(chips.map((c) => c.attributes("data-thread-id"))).toEqual(["t1", "t2", "t3"]);
    expect(chips.map((c) => c.attributes("data-status"))).toEqual(["done", "done", "error"]);
    expect(chips[0]?.text()).toContain("Industry sales data");
    expect(chips[0]?.text()).toContain("Done · 2 sources");
    expect(chips[2]?.text()).toContain("Failed · 1 source");
    expect(wrapper.text()).toContain("2/3 done");
    expect(wrapper.find("[data-test=subagent-inspector]").exists()).toBe(false);
  });

  it("opens the inspector with the thread's task, result, sources and child-session link; Escape closes it and focus returns", async () => {
    const wrapper = await mountPanel(completedResearch());
    const chip = wrapper.get("[data-test=thread-chip][data-thread-id=t1]");
    await chip.trigger("click");
    expect(chip.attributes("aria-pressed")).toBe("true");
    const inspector = wrapper.get("[data-test=subagent-inspector]");
    expect(inspector.attributes("id")).toBe(chip.attributes("aria-controls"));
    expect(inspector.text()).toContain("Collect EHPA sales figures for 2022 and 2023.");
    expect(inspector.get("[data-test=thread-summary]").text()).toBe("EHPA: +38% in 2022, about -5% in 2023.");
    expect(inspector.findAll("[data-source-id]").map((s) => `${s.attributes("data-source-id")}:${s.attributes("data-status")}`)).toEqual([
      "1:cited",
      "4:excluded",
    ]);
    expect(inspector.get("[data-test=subagent-child-link]").attributes("href")).toBe("/sessions/0199a7e2-5000-7000-8000-000000000001");

    keydown(inspector.element, "Escape");
    await flushPromises();
    expect(wrapper.find("[data-test=subagent-inspector]").exists()).toBe(false);
    expect(document.activeElement).toBe(chip.element);
  });

  it("shows a failed thread's error, and no child link for a thread that never started", async () => {
    const wrapper = await mountPanel(completedResearch());
    await wrapper.get("[data-thread-id=t3]").trigger("click");
    expect(wrapper.get("[data-test=subagent-inspector] [role=alert]").text()).toBe("Worker stopped: No scripted reply");

    const gathering = await mountPanel(gatheringResearch(), []);
    await gathering.get("[data-test=thread-chip][data-thread-id=t3]").trigger("click");
    const inspector = gathering.get("[data-test=subagent-inspector]");
    expect(inspector.find("[data-test=subagent-child-link]").exists()).toBe(false);
    expect(inspector.text()).toContain("Not finished yet.");
    // Clicking the selected chip again closes the inspector.
    await gathering.get("[data-test=thread-chip][data-thread-id=t3]").trigger("click");
    expect(gathering.find("[data-test=subagent-inspector]").exists()).toBe(false);
  });
});

describe("ResearchPanel: report artifact and citation preview", () => {
  it("renders the report message with citation links marked by their sentence's support verdict", async () => {
    const wrapper = await mountPanel(completedResearch());
    const artifact = wrapper.get("[data-test=report-artifact]");
    expect(artifact.attributes("data-state")).toBe("ready");
    expect(artifact.get("h3").text()).toBe("Heat pump sales in Europe, 2022–2023");
    const links = artifact.findAll("[data-test=citation-link]");
    expect(links.map((l) => `${l.attributes("data-citation")}:${l.attributes("data-verdict")}`)).toEqual([
      "1:supported",
      "2:partial",
      "3:supported",
      "1:unsupported",
    ]);
    expect(links[3]?.attributes("aria-label")).toContain("Not supported");
    expect(artifact.findAll("[data-test=support-count]").map((c) => c.text())).toEqual([
      "2 supported",
      "1 partly supported",
      "1 not supported",
    ]);
    expect(artifact.findAll("[data-test=support-sentence]").map((s) => s.attributes("data-verdict"))).toEqual([
      "supported",
      "partial",
      "supported",
      "unsupported",
    ]);
  });

  it("opens an anchored preview with the source, claim, evidence, status and verdict; Escape closes it and focus returns", async () => {
    const wrapper = await mountPanel(completedResearch());
    const link = wrapper.findAll("[data-test=citation-link]")[1];
    if (!link) throw new Error("no second citation");
    (link.element as HTMLElement).focus();
    await link.trigger("click");
    await flushPromises();

    const preview = wrapper.get("[data-test=citation-preview]");
    expect(preview.attributes("role")).toBe("dialog");
    expect(preview.attributes("data-citation")).toBe("2");
    expect(preview.text()).toContain("The Future of Heat Pumps");
    expect(preview.get("a").attributes("href")).toBe("https://www.iea.org/reports/the-future-of-heat-pumps");
    expect(preview.get("[data-test=citation-status]").text()).toBe("Cited");
    expect(preview.get("[data-test=citation-claim]").text()).toBe("Heat pumps are on track to become the main way of heating buildings.");
    expect(preview.get("[data-test=citation-evidence]").text()).toContain("grew by close to 15% in 2021");
    expect(preview.findAll("[data-test=citation-support]").map((s) => s.attributes("data-verdict"))).toEqual(["partial"]);
    expect(document.activeElement).toBe(preview.element);

    keydown(preview.element, "Escape");
    await flushPromises();
    expect(wrapper.find("[data-test=citation-preview]").exists()).toBe(false);
    expect(document.activeElement).toBe(link.element);
  });

  it("shows the verdict of the clicked sentence when a source is cited twice", async () => {
    const wrapper = await mountPanel(completedResearch());
    const links = wrapper.findAll("[data-test=citation-link][data-citation='1']");
    await links[1]?.trigger("click");
    await flushPromises();
    const preview = wrapper.get("[data-test=citation-preview]");
    expect(preview.findAll("[data-test=citation-support]").map((s) => s.attributes("data-verdict"))).toEqual(["unsupported"]);
    expect(preview.text()).toContain("cheaper gas");
    // Clicking outside closes it.
    document.body.dispatchEvent(new Event("pointerdown", { bubbles: true }));
    await flushPromises();
    expect(wrapper.find("[data-test=citation-preview]").exists()).toBe(false);
  });

  it("works without researchReport: no verdicts, the preview still shows claim and evidence", async () => {
    const wrapper = await mountPanel(completedResearch(), researchEntries(false));
    const links = wrapper.findAll("[data-test=citation-link]");
    expect(links).toHaveLength(4);
    expect(links.every((l) => l.attributes("data-verdict") === undefined)).toBe(true);
    expect(wrapper.find("[data-test=support-list]").exists()).toBe(false);
    await links[2]?.trigger("click");
    await flushPromises();
    const preview = wrapper.get("[data-test=citation-preview]");
    expect(preview.text()).toContain("Installer interviews");
    expect(preview.get("code").text()).toBe("./notes/interviews.md");
    expect(preview.find("[data-test=citation-support]").exists()).toBe(false);
  });

  it("marks a citation the backend found invalid and says why in its preview", async () => {
    const research = completedResearch();
    const markdown = `${REPORT_MARKDOWN}\n\nA blog said sales tripled [4](https://example.com/blog/heat-pumps-boom).`;
    const [user, report] = researchEntries();
    if (user === undefined || report?.type !== "message" || report.role !== "assistant") throw new Error("fixture");
    const entries = [user, { ...report, text: markdown, researchReport: researchReportDetails(markdown, research) }];
    const wrapper = await mountPanel(research, entries);
    const links = wrapper.findAll("[data-test=report-artifact] [data-test=citation-link]");
    expect(links.map((l) => l.attributes("data-valid"))).toEqual(["true", "true", "true", "true", "false"]);
    expect(links[4]?.attributes("aria-label")).toContain("invalid");
    await links[4]?.trigger("click");
    await flushPromises();
    const preview = wrapper.get("[data-test=citation-preview]");
    expect(preview.attributes("data-valid")).toBe("false");
    expect(preview.get("[data-test=citation-invalid]").text()).toBe("Invalid citation: it cites excluded source 4.");
    expect(preview.attributes("data-status")).toBe("excluded");
    expect(preview.text()).toContain("Excluded: Unsourced blog claim contradicted by association data");
  });

  it("says so when the report message is not on the loaded branch, and shows no artifact before the report", async () => {
    const missing = await mountPanel(completedResearch(), []);
    expect(missing.get("[data-test=report-artifact]").attributes("data-state")).toBe("missing");
    const running = await mountPanel(gatheringResearch(), []);
    expect(running.find("[data-test=report-artifact]").exists()).toBe(false);
  });
});

describe("ResearchPanel: source rail", () => {
  it("shows the cited sources first and the whole ledger with exclusion reasons on demand", async () => {
    const wrapper = await mountPanel(completedResearch());
    const rail = wrapper.get("[data-test=source-rail]");
    expect(rail.get("[data-test=source-view-cited]").attributes("aria-selected")).toBe("true");
    expect(rail.findAll("[data-test=source-item]").map((s) => `${s.attributes("data-source-id")}:${s.attributes("data-status")}`)).toEqual([
      "1:cited",
      "2:cited",
      "3:cited",
    ]);

    await rail.get("[data-test=source-view-all]").trigger("click");
    expect(rail.get("[data-test=source-view-all]").attributes("aria-selected")).toBe("true");
    expect(rail.findAll("[data-test=source-item]").map((s) => `${s.attributes("data-source-id")}:${s.attributes("data-status")}`)).toEqual([
      "1:cited",
      "2:cited",
      "3:cited",
      "5:candidate",
      "4:excluded",
    ]);
    expect(rail.get("[data-source-id='4'] [data-test=exclusion-reason]").text()).toBe(
      "Excluded: Unsourced blog claim contradicted by association data",
    );
    expect(rail.get("[data-group=excluded]").text()).toContain("Excluded");
  });

  it("moves between the two views with the arrow keys", async () => {
    const wrapper = await mountPanel(completedResearch());
    const cited = wrapper.get("[data-test=source-view-cited]");
    keydown(cited.element, "ArrowRight");
    await flushPromises();
    expect(wrapper.get("[data-test=source-rail]").attributes("data-view")).toBe("all");
    expect(document.activeElement).toBe(wrapper.get("[data-test=source-view-all]").element);
  });

  it("offers the ledger when nothing is cited yet", async () => {
    const wrapper = await mountPanel(gatheringResearch(), []);
    const rail = wrapper.get("[data-test=source-rail]");
    expect(rail.findAll("[data-test=source-item]")).toHaveLength(0);
    expect(rail.text()).toContain("No cited sources yet.");
    await rail.get("button.linklike").trigger("click");
    expect(rail.findAll("[data-test=source-item]").map((s) => `${s.attributes("data-source-id")}:${s.attributes("data-status")}`)).toEqual([
      "1:candidate",
      "2:candidate",
    ]);
  });

  it("reveals and focuses a source from the citation preview", async () => {
    const wrapper = await mountPanel(completedResearch());
    await wrapper.findAll("[data-test=citation-link]")[2]?.trigger("click");
    await flushPromises();
    await wrapper.get("[data-test=citation-preview] button.show").trigger("click");
    await flushPromises();
    expect(wrapper.find("[data-test=citation-preview]").exists()).toBe(false);
    const item = wrapper.get("[data-test=source-rail] [data-test=source-item][data-source-id='3']");
    expect(document.activeElement).toBe(item.element);
    expect(item.classes()).toContain("highlighted");
  });
});

describe("ResearchPanel: hostile text", () => {
  it("shows titles, claims, reasons and summaries as text, never as markup", async () => {
    const hostile = `<img src="http://evil.example/x.png" onerror="alert(1)"><script>alert(2)</script>`;
    const research = completedResearch();
    const tainted: ResearchState = {
      ...research,
      objective: `Objective ${hostile}`,
      error: hostile,
      threads: research.threads.map((t) => ({ ...t, title: `${t.title} ${hostile}`, summary: hostile, task: hostile })),
      sources: research.sources.map((s) => ({
        ...s,
        title: `${s.title} ${hostile}`,
        claim: hostile,
        evidence: hostile,
        exclusionReason: hostile,
      })),
    };
    const wrapper = await mountPanel(tainted);
    await wrapper.get("[data-thread-id=t1]").trigger("click");
    await wrapper.findAll("[data-test=citation-link]")[0]?.trigger("click");
    await wrapper.get("[data-test=source-view-all]").trigger("click");
    await flushPromises();
    expect(wrapper.find("img").exists()).toBe(false);
    expect(wrapper.find("script").exists()).toBe(false);
    expect(wrapper.get("[data-test=citation-claim]").text()).toBe(hostile);
    expect(wrapper.get("[data-source-id='4'] [data-test=exclusion-reason]").text()).toContain(hostile);
    expect(wrapper.text()).toContain(`Objective ${hostile}`);
  });
});
