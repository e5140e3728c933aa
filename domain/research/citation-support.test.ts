import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { analyse, assessCitationSupport, PARTIAL_MIN_SCORE, stem, SUPPORTED_MIN_SCORE } from "./citation-support.ts";
import { extractNumericCitations } from "./citations.ts";
import type { ResearchSource } from "./research-types.ts";

function source(id: number, claim: string, evidence: string, title = ""): ResearchSource {
  return {
    id,
    key: `url:https://e.org/${id}`,
    url: `https://e.org/${id}`,
    path: "",
    title,
    publisher: "",
    publishedAt: "",
    kind: "web",
    status: "candidate",
    threadIds: ["t1"],
    claim,
    evidence,
    exclusionReason: "",
  };
}

const SOURCES: ResearchSource[] = [
  source(1, "Plains zebras have black and white stripes.", "Stripes deter biting flies from landing on zebras.", "Why zebras have stripes"),
  source(2, "The population fell by 25% between 2002 and 2016.", "Numbers dropped 25 percent from 2002 to 2016."),
  source(3, "", ""),
  source(4, "", "Grevy's zebra is listed as endangered by the IUCN.", "IUCN Red List"),
];

const cite = (n: number) => `[${n}](https://e.org/${n})`;

describe("assessCitationSupport", () => {
  it("supports a sentence whose terms the evidence contains", () => {
    const [result] = assessCitationSupport(`Zebra stripes deter biting flies ${cite(1)}.`, SOURCES);
    expect(result).toEqual({
      sentence: "Zebra stripes deter biting flies.",
      sourceId: 1,
      verdict: "supported",
      score: 1,
      matchedTerms: ["zebra", "strip", "deter", "bit", "fly"],
      missingNumbers: [],
    });
  });

  it("finds an unrelated sentence unsupported", () => {
    const [result] = assessCitationSupport(`Penguins live in Antarctica ${cite(1)}.`, SOURCES);
    expect(result).toMatchObject({ verdict: "unsupported", score: 0, matchedTerms: [] });
  });

  it("rates a sentence with a number the evidence lacks at most partial", () => {
    const [wrong, right] = assessCitationSupport(
      `The population fell by 30% since 2002 ${cite(2)}. The population fell by 25% between 2002 and 2016 ${cite(2)}.`,
      SOURCES,
    );
    expect(wrong).toMatchObject({ verdict: "partial", missingNumbers: ["30"] });
    expect(wrong?.score).toBeGreaterThanOrEqual(SUPPORTED_MIN_SCORE);
    expect(right).toMatchObject({ verdict: "supported", missingNumbers: [], score: 1 });
  });

  it("rates a half-covered sentence partial", () => {
    const [result] = assessCitationSupport(
      `Zebras migrate across grassy savannas in large herds while stripes deter flies ${cite(1)}.`,
      SOURCES,
    );
    expect(result?.verdict).toBe("partial");
    expect(result?.score).toBeGreaterThanOrEqual(PARTIAL_MIN_SCORE);
    expect(result?.score).toBeLessThan(SUPPORTED_MIN_SCORE);
  });

  it("has no evidence for an unknown id or a source without claim and evidence", () => {
    const results = assessCitationSupport(`Something in 1999 ${cite(9)}. Something else ${cite(3)}.`, SOURCES);
    expect(results.map((r) => [r.sourceId, r.verdict, r.score])).toEqual([
      [9, "no-evidence", 0],
      [3, "no-evidence", 0],
    ]);
    expect(results[0]?.missingNumbers).toEqual(["1999"]);
  });

  it("uses evidence alone when there is no claim, and the title for terms", () => {
    const [result] = assessCitationSupport(`The IUCN Red List lists Grevy's zebra as endangered ${cite(4)}.`, SOURCES);
    expect(result?.verdict).toBe("supported");
    expect(result?.matchedTerms).toEqual(expect.arrayContaining(["red", "list", "iucn", "endanger"]));
  });

  it("assesses every citation of a sentence against its own source, in report order", () => {
    const report = [
      "# Zebras",
      "",
      `Stripes deter biting flies ${cite(1)} ${cite(2)}.`,
      "",
      `- The population fell 25% from 2002 to 2016. ${cite(2)}`,
      `- Plains zebras have stripes.${cite(1)} Unrelated words follow here.`,
    ].join("\n");
    const results = assessCitationSupport(report, SOURCES);
    expect(results.map((r) => [r.sourceId, r.sentence, r.verdict])).toEqual([
      [1, "Stripes deter biting flies.", "supported"],
      [2, "Stripes deter biting flies.", "unsupported"],
      [2, "The population fell 25% from 2002 to 2016.", "supported"],
      [1, "Plains zebras have stripes.", "supported"],
    ]);
  });

  it("attaches a citation after the full stop to the sentence before it, not across blocks", () => {
    const results = assessCitationSupport(`Stripes deter flies. ${cite(1)} Penguins swim.\n\n${cite(1)} Penguins swim.`, SOURCES);
    expect(results.map((r) => r.sentence)).toEqual(["Stripes deter flies.", "Penguins swim."]);
  });

  it("does not split at abbreviations, initials or decimals", () => {
    const [result] = assessCitationSupport(
      `Flies, e.g. horse flies, avoid stripes (J. Smith et al. found 2.5 times fewer landings) ${cite(1)}.`,
      SOURCES,
    );
    expect(result?.sentence).toBe("Flies, e.g. horse flies, avoid stripes (J. Smith et al. found 2.5 times fewer landings).");
    expect(result?.missingNumbers).toEqual(["2.5"]);
  });

  it("ignores citations in code and strips Markdown from the sentence", () => {
    const report = `\`\`\`\nx ${cite(2)}\n\`\`\`\nThe **zebra** has \`code\` [stripes](https://x.org) ${cite(1)}.`;
    const results = assessCitationSupport(report, SOURCES);
    expect(results).toHaveLength(1);
    expect(results[0]).toMatchObject({ sourceId: 1, sentence: "The zebra has `code` stripes." });
  });

  it("gives one result per numeric citation of the report", () => {
    const report = `A ${cite(1)}. B ${cite(2)} ${cite(3)}! C? ${cite(4)}\n\n![1](img.png) \\[2](x) [x](https://e.org/1)`;
    expect(assessCitationSupport(report, SOURCES)).toHaveLength(extractNumericCitations(report).length);
  });

  it("returns nothing for a report without citations", () => {
    expect(assessCitationSupport("No citations here.", SOURCES)).toEqual([]);
  });
});

describe("terms", () => {
  it("stems common suffixes to one form", () => {
    expect(new Set(["supports", "supported", "supporting", "support"].map(stem))).toEqual(new Set(["support"]));
    expect(new Set(["studies", "study"].map(stem)).size).toBe(1);
    expect(new Set(["increase", "increases", "increased", "increasing"].map(stem)).size).toBe(1);
    expect(new Set(["run", "running"].map(stem)).size).toBe(1);
    expect(new Set(["stop", "stopped", "stopping"].map(stem)).size).toBe(1);
    expect(new Set(["boxes", "box"].map(stem)).size).toBe(1);
    expect(stem("status")).toBe("status");
  });

  it("drops stopwords, keeps numbers as terms, normalises thousands and ignores numbers inside words", () => {
    expect(analyse("The ES2022 release of the café added 1,200 features in 2022.")).toEqual({
      terms: ["es2022", "releas", "caf", "add", "1200", "featur", "2022"],
      numbers: ["1200", "2022"],
    });
    expect(analyse("Added, adds and add")).toEqual({ terms: ["add"], numbers: [] });
  });
});

describe("assessCitationSupport: laws", () => {
  const arbSentence = fc
    .array(fc.constantFrom("zebras", "stripes", "flies", "deter", "population", "fell", "25%", "2002", "penguins", "ice", "the", "and"), {
      minLength: 1,
      maxLength: 8,
    })
    .map((words) => words.join(" "));
  const arbReport = fc
    .array(fc.tuple(arbSentence, fc.array(fc.integer({ min: 1, max: 6 }), { minLength: 1, maxLength: 2 })), { minLength: 1, maxLength: 6 })
    .map((parts) => parts.map(([sentence, ids]) => `${sentence} ${ids.map(cite).join(" ")}.`).join(" "));
  const arbSources = fc.uniqueArray(
    fc.record({
      id: fc.integer({ min: 1, max: 6 }),
      claim: fc.option(arbSentence, { nil: "" }),
      evidence: fc.option(arbSentence, { nil: "" }),
      title: arbSentence,
    }),
    { selector: (s) => s.id, maxLength: 6 },
  );

  it("does not depend on the order of the sources", () => {
    fc.assert(
      fc.property(arbReport, arbSources, fc.infiniteStream(fc.nat()), (report, raw, seeds) => {
        const sources = raw.map((s) => source(s.id, s.claim, s.evidence, s.title));
        const shuffled = [...sources]
          .map((s) => ({ s, k: seeds.next().value }))
          .sort((a, b) => a.k - b.k)
          .map((x) => x.s);
        expect(assessCitationSupport(report, shuffled)).toEqual(assessCitationSupport(report, sources));
      }),
    );
  });

  it("lists citations in report order, with scores in [0, 1] and verdicts that follow the thresholds", () => {
    fc.assert(
      fc.property(arbReport, arbSources, (report, raw) => {
        const sources = raw.map((s) => source(s.id, s.claim, s.evidence, s.title));
        const results = assessCitationSupport(report, sources);
        expect(results.map((r) => r.sourceId)).toEqual(extractNumericCitations(report).map((c) => c.n));
        for (const r of results) {
          expect(r.score).toBeGreaterThanOrEqual(0);
          expect(r.score).toBeLessThanOrEqual(1);
          if (r.verdict === "supported") expect(r.score >= SUPPORTED_MIN_SCORE && r.missingNumbers.length === 0).toBe(true);
          if (r.verdict === "partial") expect(r.score).toBeGreaterThanOrEqual(PARTIAL_MIN_SCORE);
          if (r.verdict === "unsupported") expect(r.score < SUPPORTED_MIN_SCORE || r.missingNumbers.length > 0).toBe(true);
        }
      }),
    );
  });
});
