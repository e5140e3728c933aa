/**
 * The reserved `researcher` agent of deep research (spec/deep-research.md, "Research workers"), as data.
 *
 * It is built in: agent files named `researcher` (user or project) never replace it — discovery drops them
 * and does not list them (they could never run). Its tool policy: every tool the child runtime discovers
 * except `write` and `edit` (the execution route's `excludeTools`), with bash limited by the prompt to
 * commands that change no file. Its model and thinking level are the parent's unless the subagent task names
 * them; stored model overrides do not apply to it.
 */
import { MAX_SOURCES_PER_RESULT } from "../research/source-ledger.ts";

export const RESEARCHER_AGENT_NAME = "researcher";

/** The agent key of the built-in researcher (file agents have `source:path#name` keys; see agent-definition.ts). */
export const RESEARCHER_AGENT_KEY = `builtin:${RESEARCHER_AGENT_NAME}`;

/** The tag of the block a researcher's answer ends with. */
export const RESEARCH_RESULT_TAG = "research_result";

/** Tools a researcher never gets, whatever its child runtime discovers. */
export const RESEARCHER_EXCLUDED_TOOLS: readonly string[] = ["write", "edit"];

export const RESEARCHER_DESCRIPTION =
  "Deep-research worker: investigates one research thread with read-only tools and ends with a structured research_result block listing the sources it read.";

export const RESEARCHER_SYSTEM_PROMPT = `You are a research worker. A research lead gives you one thread of a larger investigation. Investigate it thoroughly and report what you found, with the sources you read.

The task starts with the thread id, a colon, then what to research: "<thread id>: <task>".

Rules:
- Do not change any file. Never create, modify, move, rename or delete a file or folder, by any tool or command. You have no write or edit tool.
- Use bash only to run command-line tools whose command does not create, modify, move, rename or delete files: for example ls, cat, head, grep, rg, find (without -delete or -exec), wc, git log, git show, git diff, or curl printing to the terminal. Never redirect output into a file (>, >>, tee), never install packages, run builds, formatters, code generators or scripts that write files. If you are not sure that a command leaves every file untouched, do not run it.
- Read every source you cite, in this run. Never invent a URL, path, title, date, quotation or claim. Prefer primary and authoritative sources, and say when sources disagree.
- Stay on your thread; another worker covers each other thread.

Answer format:
First write your findings in a few short paragraphs of plain prose. Then end your answer with exactly one block, with nothing after it:

<${RESEARCH_RESULT_TAG}>{"threadId": "t1", "title": "Thread title", "summary": "What you found, in a few sentences.", "sources": [{"url": "https://example.org/page", "title": "Page title", "publisher": "Example", "publishedAt": "2024-05-01", "kind": "documentation", "claim": "What this source supports, in one sentence.", "evidence": "A short quotation or precise paraphrase from the source that backs the claim."}]}</${RESEARCH_RESULT_TAG}>

- Between the tags put one valid JSON object and nothing else: double-quoted keys and strings, no trailing commas, no comments, no Markdown, no code fence.
- threadId: the thread id from the start of the task. title: a short title of the thread. summary: your findings in a few sentences.
- sources: at most ${MAX_SOURCES_PER_RESULT}, the most important first, only sources you actually read. Each has either "url" (http or https) or "path" (a local file you read) instead of "url"; and "title", "publisher" ("" if unknown), "publishedAt" (an ISO date if known, else ""), "kind" (such as documentation, paper, article, code, dataset, forum), "claim" and "evidence".
- If you found nothing usable, still end with the block, with an empty "sources" array and a summary that says so.`;

/** The researcher's definition as the execution route needs it. */
export interface BuiltinAgentDefinition {
  readonly key: string;
  readonly name: string;
  readonly description: string;
  readonly source: "builtin";
  readonly systemPrompt: string;
  /** Every tool the child runtime discovers, except these. */
  readonly excludeTools: readonly string[];
  /** Bash may only run commands that change no file (enforced by the prompt). */
  readonly bash: "read-only";
  /** Model and thinking: the parent's, unless the subagent task names them; overrides do not apply. */
  readonly inheritsParentModel: true;
}

export const RESEARCHER_AGENT: BuiltinAgentDefinition = {
  key: RESEARCHER_AGENT_KEY,
  name: RESEARCHER_AGENT_NAME,
  description: RESEARCHER_DESCRIPTION,
  source: "builtin",
  systemPrompt: RESEARCHER_SYSTEM_PROMPT,
  excludeTools: RESEARCHER_EXCLUDED_TOOLS,
  bash: "read-only",
  inheritsParentModel: true,
};

/** Whether an agent file with this name is ignored because the name is reserved for a built-in agent. */
export function isReservedAgentName(name: string): boolean {
  return name.trim() === RESEARCHER_AGENT_NAME;
}
