/**
 * Pools of pseudo-text for the benchmark corpus, built once per seed: prose (user prompts, assistant text,
 * thinking, summaries) and code-like output (tool results, bash output, edit arguments). Entries take slices
 * of them at random offsets, which is fast and gives JSON with realistic escapes (newlines, quotes,
 * backslashes, tabs, non-ASCII BMP characters; no astral characters, so a slice never splits a pair).
 */
import type { Rng } from "./prng.ts";

const WORDS = [
  "the",
  "session",
  "file",
  "index",
  "projection",
  "fold",
  "should",
  "we",
  "can",
  "refactor",
  "module",
  "test",
  "branch",
  "compaction",
  "agent",
  "model",
  "tool",
  "result",
  "error",
  "function",
  "return",
  "value",
  "type",
  "interface",
  "state",
  "read",
  "write",
  "cache",
  "sqlite",
  "checkpoint",
  "leaf",
  "tree",
  "entry",
  "parent",
  "child",
  "stream",
  "event",
  "client",
  "server",
  "route",
  "schema",
  "handler",
  "build",
  "bundle",
  "performance",
  "memory",
  "latency",
  "benchmark",
  "corpus",
  "decode",
  "line",
  "json",
  "parse",
  "offset",
  "and",
  "or",
  "but",
  "because",
  "then",
  "so",
  "with",
  "without",
  "into",
  "from",
  "over",
  "under",
  "it",
  "is",
  "are",
  "was",
  "be",
  "this",
  "that",
  "these",
  "those",
  "a",
  "an",
  "of",
  "to",
  "in",
  "on",
  "for",
  "déjà",
  "naïve",
  "façade",
  "→",
  "—",
  "…",
  "µs",
  "“quoted”",
  "'single'",
  '"double"',
  "path\\to\\file",
];

const IDENTIFIERS = [
  "sessionIndex",
  "readTail",
  "decodeLines",
  "applyEntry",
  "buildTranscript",
  "pathTo",
  "leafId",
  "records",
  "state",
  "draft",
  "offset",
  "fingerprint",
  "stamp",
  "result",
  "options",
  "config",
  "handler",
  "request",
  "reply",
  "emitter",
  "listener",
  "buffer",
  "chunk",
  "lines",
  "entry",
  "summary",
  "tree",
  "children",
  "roots",
];

function sentence(rng: Rng): string {
  const n = rng.int(4, 18);
  const words: string[] = [];
  for (let i = 0; i < n; i++) words.push(rng.pick(WORDS));
  const first = words[0] as string;
  words[0] = first.charAt(0).toUpperCase() + first.slice(1);
  return words.join(" ") + rng.pick([".", ".", ".", "?", "!", ":"]);
}

function proseBlock(rng: Rng): string {
  const kind = rng.int(0, 9);
  if (kind === 0) return "- " + sentence(rng) + "\n- " + sentence(rng) + "\n- " + sentence(rng) + "\n\n";
  if (kind === 1) return "`" + rng.pick(IDENTIFIERS) + "()` " + sentence(rng) + "\n\n";
  if (kind === 2) return "## " + sentence(rng) + "\n\n";
  let out = "";
  const n = rng.int(1, 5);
  for (let i = 0; i < n; i++) out += sentence(rng) + " ";
  return out + "\n\n";
}

function codeLine(rng: Rng, indent: number): string {
  const pad = "  ".repeat(indent);
  const a = rng.pick(IDENTIFIERS);
  const b = rng.pick(IDENTIFIERS);
  switch (rng.int(0, 9)) {
    case 0:
      return `${pad}const ${a} = await ${b}(${rng.pick(IDENTIFIERS)}, { offset: ${rng.int(0, 99999)} });`;
    case 1:
      return `${pad}if (${a}.length > ${rng.int(0, 512)}) return "${rng.pick(WORDS)}";`;
    case 2:
      return `${pad}// ${sentence(rng)}`;
    case 3:
      return `${pad}export function ${a}(${b}: string): number {`;
    case 4:
      return `${pad}}`;
    case 5:
      return `${pad}${a}.push({ id: "${rng.hex(8)}", parentId: ${rng.chance(0.5) ? `"${rng.hex(8)}"` : "null"} });`;
    case 6:
      return `${pad}throw new Error(\`${a}: unexpected \${${b}}\`);`;
    case 7:
      return `${pad}\t${a}\t${rng.int(0, 9999)}\t${rng.pick(WORDS)}\t"C:\\\\Users\\\\dev"`;
    case 8:
      return `src/${a}/${b}.ts:${rng.int(1, 400)}:${rng.int(1, 80)} - error TS${rng.int(2000, 7999)}: ${sentence(rng)}`;
    default:
      return `${pad}${a} = ${b}?.${rng.pick(IDENTIFIERS)} ?? ${rng.int(0, 100)};`;
  }
}

export interface TextPools {
  readonly prose: string;
  readonly code: string;
}

export function buildTextPools(rng: Rng, sizeChars = 256 * 1024): TextPools {
  let prose = "";
  while (prose.length < sizeChars) prose += proseBlock(rng);
  const codeLines: string[] = [];
  let codeLength = 0;
  let indent = 0;
  while (codeLength < sizeChars) {
    const line = codeLine(rng, indent);
    if (line.endsWith("{")) indent = Math.min(indent + 1, 5);
    else if (line.trim() === "}") indent = Math.max(indent - 1, 0);
    codeLines.push(line);
    codeLength += line.length + 1;
  }
  return { prose, code: codeLines.join("\n") };
}

/** A slice of `pool` of `length` characters (at most the pool's length) at a random offset. */
export function sliceOf(rng: Rng, pool: string, length: number): string {
  const n = Math.max(1, Math.min(length, pool.length));
  const start = rng.int(0, pool.length - n);
  return pool.slice(start, start + n);
}
