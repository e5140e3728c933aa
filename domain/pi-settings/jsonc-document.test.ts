/**
 * jsonc-document.ts: parsing models.json ("jsonc") and mcp.json ("json") the way pi reads them, with user-facing
 * messages, and edits that change only the edited span. Each case is Given (a text) / When (parse or edit) /
 * Then (the value, the message, or the exact bytes that changed).
 */
import { describe, expect, it } from "vitest";
import { parseJsoncDocument } from "./jsonc-document.ts";
import { detectJsoncFormatting, editJsoncDocument } from "./jsonc-edit.ts";
import type { JsoncEdit } from "./jsonc-edit.ts";

/** The one region where two texts differ: what was removed from `before` and inserted in its place. */
function difference(before: string, after: string): { at: number; removed: string; inserted: string } {
  let start = 0;
  while (start < before.length && start < after.length && before[start] === after[start]) start++;
  let end = 0;
  while (end < before.length - start && end < after.length - start && before[before.length - 1 - end] === after[after.length - 1 - end])
    end++;
  return { at: start, removed: before.slice(start, before.length - end), inserted: after.slice(start, after.length - end) };
}

function edit(text: string, ...edits: JsoncEdit[]): string {
  return editJsoncDocument(text, edits, "jsonc");
}

const STORED = [
  "// pi models",
  "{",
  '  "providers": {',
  "    // a local server",
  '    "ollama": { "baseUrl" :  "http://localhost:11434/v1", "api": "openai-completions" },',
  '    "proxy": {',
  '       "baseUrl": "https://proxy.example.com/v1",',
  '       "x-owner": "ops", // not pi\'s',
  "    } // the proxy",
  "  },",
  "",
  "}",
  "",
].join("\n");

describe("parseJsoncDocument", () => {
  it("given models.json with line comments and trailing commas, when parsed as jsonc, then it reads like pi", () => {
    expect(parseJsoncDocument(STORED, "jsonc")).toEqual({
      ok: true,
      value: {
        providers: {
          ollama: { baseUrl: "http://localhost:11434/v1", api: "openai-completions" },
          proxy: { baseUrl: "https://proxy.example.com/v1", "x-owner": "ops" },
        },
      },
    });
  });

  it("given an empty or whitespace-only file, when parsed, then it is the empty object", () => {
    expect(parseJsoncDocument("", "jsonc")).toEqual({ ok: true, value: {} });
    expect(parseJsoncDocument(" \r\n\t\n", "json")).toEqual({ ok: true, value: {} });
  });

  it("given a byte-order mark, when parsed, then it is ignored as pi's loader does", () => {
    expect(parseJsoncDocument('\uFEFF{ "a": 1 }', "json")).toEqual({ ok: true, value: { a: 1 } });
  });

  it("given a block comment in models.json, when parsed, then it is refused with its line", () => {
    expect(parseJsoncDocument('{\n  /* old */ "providers": {}\n}', "jsonc")).toEqual({
      ok: false,
      message: "models.json is not valid: block comments are not supported (line 2)",
    });
  });

  it("given comments or trailing commas in mcp.json, when parsed as json, then they are refused with their line", () => {
    expect(parseJsoncDocument('{\n  // servers\n  "mcpServers": {}\n}', "json")).toEqual({
      ok: false,
      message: "mcp.json is not valid: comments are not supported (line 2)",
    });
    expect(parseJsoncDocument('{\n  "mcpServers": {},\n}', "json")).toEqual({
      ok: false,
      message: "mcp.json is not valid: trailing commas are not supported (line 2)",
    });
    expect(parseJsoncDocument('{ "args": ["a",] }', "json", "project mcp.json")).toEqual({
      ok: false,
      message: "project mcp.json is not valid: trailing commas are not supported (line 1)",
    });
  });

  it("given a duplicate key at any depth, when parsed, then the message names the key and the line of the repeat", () => {
    const text = '{\n  "providers": {\n    "openai": {},\n    "openai": {}\n  }\n}';
    expect(parseJsoncDocument(text, "jsonc")).toEqual({ ok: false, message: 'models.json is not valid: duplicate key "openai" at line 4' });
    expect(parseJsoncDocument('[{ "a": 1, "a": 2 }]', "json")).toEqual({
      ok: false,
      message: 'mcp.json is not valid: duplicate key "a" at line 1',
    });
  });

  it("given a syntax error, when parsed, then the message says what and where", () => {
    expect(parseJsoncDocument('{\n  "a": 1,\n  "b": nope\n}', "jsonc")).toEqual({
      ok: false,
      message: "models.json is not valid: unexpected token at line 3, column 8",
    });
    expect(parseJsoncDocument('{ "a" 1 }', "jsonc")).toEqual({
      ok: false,
      message: 'models.json is not valid: expected ":" at line 1, column 7',
    });
    expect(parseJsoncDocument('{\n  "a": 1\n', "jsonc")).toEqual({
      ok: false,
      message: "models.json is not valid: unexpected end of file at line 3, column 1",
    });
    expect(parseJsoncDocument("// only a comment\n", "jsonc")).toEqual({
      ok: false,
      message: "models.json is not valid: unexpected end of file at line 2, column 1",
    });
  });

  it("given a __proto__ key, when parsed, then it is an own property as with JSON.parse", () => {
    const parsed = parseJsoncDocument('{ "__proto__": { "polluted": true } }', "json");
    expect(parsed.ok).toBe(true);
    const value = parsed.ok ? (parsed.value as Record<string, unknown>) : {};
    expect(Object.hasOwn(value, "__proto__")).toBe(true);
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
  });
});

describe("detectJsoncFormatting", () => {
  it("takes the indent unit from the first indented line and CRLF when the text uses it", () => {
    expect(detectJsoncFormatting('{\n    "a": {\n  "b": 1 }\n}')).toEqual({ indentUnit: "    ", eol: "\n" });
    expect(detectJsoncFormatting('{\r\n\t"a": 1\r\n}')).toEqual({ indentUnit: "\t", eol: "\r\n" });
    expect(detectJsoncFormatting('{ "a": 1 }')).toEqual({ indentUnit: "  ", eol: "\n" });
  });
});

describe("editJsoncDocument", () => {
  it("given an existing value, when it is set, then only that value's bytes change", () => {
    const after = edit(STORED, { path: ["providers", "proxy", "x-owner"], value: "platform" });
    expect(difference(STORED, after)).toEqual({ at: STORED.indexOf('"ops"') + 1, removed: "ops", inserted: "platform" });
  });

  it("given a one-line or a multi-line value, when it is replaced, then the new value keeps that layout", () => {
    const text = '{\n  "map": { "high": "think" },\n  "cost": {\n    "input": 1\n  }\n}';
    expect(edit(text, { path: ["map"], value: { low: "quick", xhigh: null } })).toBe(
      '{\n  "map": { "low": "quick", "xhigh": null },\n  "cost": {\n    "input": 1\n  }\n}',
    );
    expect(edit(text, { path: ["cost"], value: { input: 2, output: 3 } })).toBe(
      '{\n  "map": { "high": "think" },\n  "cost": {\n    "input": 2,\n    "output": 3\n  }\n}',
    );
    expect(edit(text, { path: ["map"], value: { high: "x".repeat(80) } })).toBe(
      `{\n  "map": {\n    "high": "${"x".repeat(80)}"\n  },\n  "cost": {\n    "input": 1\n  }\n}`,
    );
  });

  it("given a one-line provider, when a field is added, then it is added inline and nothing else changes", () => {
    const after = edit(STORED, { path: ["providers", "ollama", "apiKey"], value: "ollama" });
    expect(difference(STORED, after).inserted).toBe(', "apiKey": "ollama"');
    expect(after).toContain('"ollama": { "baseUrl" :  "http://localhost:11434/v1", "api": "openai-completions", "apiKey": "ollama" },');
  });

  it("given a last member with a trailing comment, when a member is added after it, then the comment stays on its line", () => {
    const after = edit(STORED, { path: ["providers", "lmstudio"], value: { baseUrl: "http://localhost:1234/v1", models: [] } });
    expect(after).toBe(
      STORED.replace(
        "    } // the proxy\n",
        '    }, // the proxy\n    "lmstudio": {\n      "baseUrl": "http://localhost:1234/v1",\n      "models": []\n    }\n',
      ),
    );
    expect(parseJsoncDocument(after, "jsonc").ok).toBe(true);
  });

  it("given trailing commas, when a member is appended, then it gets one too", () => {
    const after = edit(STORED, { path: ["providers", "proxy", "name"], value: "Proxy" });
    expect(after).toBe(STORED.replace("// not pi's\n", '// not pi\'s\n       "name": "Proxy",\n'));
  });

  it("given a last member, when it is removed, then its lines and trailing comment go and the previous comma with them", () => {
    const text = '{\n  "a": 1,\n  "b": {\n    "c": 2\n  } // about b\n}\n';
    expect(edit(text, { path: ["b"], value: undefined })).toBe('{\n  "a": 1\n}\n');
  });

  it("given a first member with a comment line before the next, when it is removed, then the next member's comment stays", () => {
    const text = '{\n  "a": 1, // about a\n  // about b\n  "b": 2\n}';
    expect(edit(text, { path: ["a"], value: undefined })).toBe('{\n  // about b\n  "b": 2\n}');
  });

  it("given an only member, when it is removed, then the container becomes empty", () => {
    expect(edit('{\n  "a": {\n    "b": 1\n  }\n}', { path: ["a", "b"], value: undefined })).toBe('{\n  "a": {}\n}');
    expect(edit('{ "models": [{ "id": "x" }] }', { path: ["models", 0], value: undefined })).toBe('{ "models": [] }');
  });

  it("given inline members, when one is removed, then its comma and spacing go with it", () => {
    expect(edit('{ "a": 1, "b": 2, "c": 3 }', { path: ["a"], value: undefined })).toBe('{ "b": 2, "c": 3 }');
    expect(edit('{ "a": 1, "b": 2, "c": 3 }', { path: ["c"], value: undefined })).toBe('{ "a": 1, "b": 2 }');
    expect(edit('{ "input": ["text", "image"] }', { path: ["input", 1], value: undefined })).toBe('{ "input": ["text"] }');
  });

  it("given a missing path, when it is removed, then the text is unchanged", () => {
    expect(edit(STORED, { path: ["providers", "nope", "x"], value: undefined })).toBe(STORED);
  });

  it("given missing parents, when a nested value is set, then the parents are created", () => {
    const text = '{\n  "providers": {}\n}\n';
    expect(edit(text, { path: ["providers", "anthropic", "modelOverrides", "claude/x", "name"], value: "Claude" })).toBe(
      '{\n  "providers": {\n    "anthropic": {\n      "modelOverrides": {\n        "claude/x": {\n          "name": "Claude"\n        }\n      }\n    }\n  }\n}\n',
    );
  });

  it("given a multi-line array, when an object is appended, then it follows the last element's indentation", () => {
    const text = '{\n  "models": [\n      { "id": "a" }\n  ]\n}';
    expect(edit(text, { path: ["models", 1], value: { id: "b", input: ["text", "image"] } })).toBe(
      '{\n  "models": [\n      { "id": "a" },\n      {\n        "id": "b",\n        "input": ["text", "image"]\n      }\n  ]\n}',
    );
  });

  it("given tabs and CRLF, when members are added, then the new text uses them", () => {
    const text = '{\r\n\t"providers": {\r\n\t\t"a": {}\r\n\t}\r\n}\r\n';
    const after = edit(
      text,
      { path: ["providers", "a", "baseUrl"], value: "http://x" },
      { path: ["providers", "b"], value: { api: "pi-messages" } },
    );
    expect(after).toBe(
      '{\r\n\t"providers": {\r\n\t\t"a": {\r\n\t\t\t"baseUrl": "http://x"\r\n\t\t},\r\n\t\t"b": {\r\n\t\t\t"api": "pi-messages"\r\n\t\t}\r\n\t}\r\n}\r\n',
    );
  });

  it("given an empty text, when a value is set, then a fresh pretty document ends with a line break", () => {
    expect(edit("", { path: ["providers", "x"], value: { baseUrl: "http://h", models: [] } })).toBe(
      '{\n  "providers": {\n    "x": {\n      "baseUrl": "http://h",\n      "models": []\n    }\n  }\n}\n',
    );
    expect(edit("\n", { path: ["a"], value: undefined })).toBe("\n");
  });

  it("given a byte-order mark, when edited, then it is kept", () => {
    expect(editJsoncDocument('\uFEFF{ "a": 1 }', [{ path: ["b"], value: 2 }], "json")).toBe('\uFEFF{ "a": 1, "b": 2 }');
  });

  it("given an invalid document or an impossible path, when edited, then it throws", () => {
    expect(() => edit("{ /* x */ }", { path: ["a"], value: 1 })).toThrow(/block comments/);
    expect(() => edit('{ "a": 1 }', { path: ["a", "b"], value: 1 })).toThrow();
    expect(() => edit('{ "a": [] }', { path: ["a", 3], value: 1 })).toThrow();
  });
});
