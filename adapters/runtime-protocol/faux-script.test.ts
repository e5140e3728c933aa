import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { FauxScript, type FauxTurn, loadFauxScriptFile, parseFauxScript } from "./faux-script.ts";

describe("FauxScript.next", () => {
  it("consumes unmatched turns in order and matched turns only for matching text", () => {
    const script = new FauxScript([{ text: "first" }, { match: "beta", text: "for beta" }, { text: "second" }]);
    expect(script.next("alpha")?.text).toBe("first");
    expect(script.next("the beta task")?.text).toBe("for beta");
    expect(script.next("beta again")?.text).toBe("second");
    expect(script.next("anything")).toBeNull();
    expect(script.remaining()).toBe(0);
  });

  it("never hands a matched turn to a request that does not contain its text", () => {
    const script = new FauxScript([{ match: "only-me", text: "x" }]);
    expect(script.next("someone else")).toBeNull();
    expect(script.next("it is only-me")?.text).toBe("x");
  });

  it("returns copies (callers cannot change the script)", () => {
    const script = new FauxScript([{ text: "a", toolCalls: [{ name: "bash", arguments: { command: "ls" } }] }, { text: "b" }]);
    const turn = script.next("")!;
    turn.toolCalls![0]!.arguments["command"] = "rm -rf /";
    expect(script.remaining()).toBe(1);
  });

  it("hands out every turn at most once, whatever the request texts (property)", () => {
    const turnArb: fc.Arbitrary<FauxTurn> = fc.record(
      { match: fc.option(fc.constantFrom("a", "b", "c"), { nil: undefined }), text: fc.string() },
      { requiredKeys: ["text"] },
    );
    fc.assert(
      fc.property(
        fc.array(turnArb, { maxLength: 8 }),
        fc.array(fc.constantFrom("a", "b", "c", "abc", ""), { maxLength: 12 }),
        (turns, requests) => {
          const tagged = turns.map((turn, index) => ({ ...turn, text: `${index}` }));
          const script = new FauxScript(tagged);
          const seen = requests.map((text) => ({ text, turn: script.next(text) }));
          const used = seen.flatMap((entry) => (entry.turn ? [entry.turn.text] : []));
          expect(new Set(used).size).toBe(used.length);
          for (const entry of seen) if (entry.turn?.match !== undefined) expect(entry.text).toContain(entry.turn.match);
          expect(script.remaining()).toBe(turns.length - used.length);
        },
      ),
    );
  });
});

describe("parseFauxScript", () => {
  it("accepts the documented shape", () => {
    const checked = parseFauxScript([
      { match: "x", text: "t", thinking: "th", toolCalls: [{ name: "bash", arguments: { command: "ls" } }] },
    ]);
    expect(checked.ok).toBe(true);
  });

  it.each([
    [{ turns: [] }, "faux script must be a JSON array of turns (got an object)"],
    [[{}], "turn[0] needs at least one of text, thinking, toolCalls"],
    [[{ text: 1 }], "turn[0].text must be a string (got a number)"],
    [[{ text: "a", match: "" }], "turn[0].match must not be empty (omit it to consume the turn in order)"],
    [[{ text: "a", toolCalls: [{ name: "bash" }] }], "turn[0].toolCalls[0].arguments must be an object (got undefined)"],
    [[{ text: "a" }, { txt: "typo" }], "turn[1] has unknown field(s): txt"],
  ])("rejects %j with a clear error", (value, error) => {
    expect(parseFauxScript(value)).toEqual({ ok: false, error });
  });

  it("names the file when loading fails", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "leyline-faux-"));
    try {
      const bad = path.join(dir, "bad.json");
      fs.writeFileSync(bad, "[{");
      expect(() => loadFauxScriptFile(bad)).toThrow(/LEYLINE_FAUX_RESPONSES: .*bad\.json is not valid JSON/);
      const ok = path.join(dir, "ok.json");
      fs.writeFileSync(ok, JSON.stringify([{ text: "hi" }]));
      expect(FauxScript.fromEnv({ LEYLINE_FAUX_RESPONSES: ok })?.next("")?.text).toBe("hi");
      expect(FauxScript.fromEnv({})).toBeNull();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
