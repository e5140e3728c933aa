/**
 * An agent definition from the text of its Markdown file (pi's subagent example: frontmatter `name` and
 * `description` required, optional `tools` (comma-separated or a YAML list), `model`, `thinking`; the body is
 * the system prompt), and the agent key that names it.
 *
 * Agent key format: `${source}:${path}#${name}` — the source ("user" | "project"), the file's canonical path
 * and the agent name, e.g. `project:/home/me/app/.pi/agents/reviewer.md#reviewer`. Keys are compared whole and
 * never parsed (a path may contain `#` or `:`); they stay the same as long as the file is not moved and the
 * agent not renamed. The built-in researcher has the key `RESEARCHER_AGENT_KEY` (researcher-agent.ts).
 */
import { parseFrontmatter, type FrontmatterValue } from "./agent-frontmatter.ts";
import type { AgentDefinition, AgentDefinitionSource } from "./subagent-types.ts";

export function agentKeyOf(source: string, canonicalPath: string, name: string): string {
  return `${source}:${canonicalPath}#${name}`;
}

export type AgentDefinitionParse =
  { readonly ok: true; readonly definition: AgentDefinition } | { readonly ok: false; readonly reason: string };

function text(value: FrontmatterValue | undefined): string {
  return typeof value === "string" ? value.trim() : "";
}

/** `read, grep` or `[read, grep]` → ["read", "grep"]: trimmed, empty and repeated names dropped. */
export function toolList(value: FrontmatterValue | undefined): string[] {
  if (value === undefined) return [];
  const parts = (typeof value === "string" ? [value] : value).flatMap((part) => part.split(","));
  const tools: string[] = [];
  for (const part of parts) {
    const tool = part.trim();
    if (tool !== "" && !tools.includes(tool)) tools.push(tool);
  }
  return tools;
}

export function parseAgentDefinition(
  content: string,
  file: { readonly source: AgentDefinitionSource; readonly path: string },
): AgentDefinitionParse {
  const { fields, body } = parseFrontmatter(content);
  const name = text(fields["name"]);
  const description = text(fields["description"]);
  if (name === "") return { ok: false, reason: "missing name in frontmatter" };
  if (description === "") return { ok: false, reason: "missing description in frontmatter" };
  return {
    ok: true,
    definition: {
      key: agentKeyOf(file.source, file.path, name),
      name,
      description,
      source: file.source,
      path: file.path,
      model: text(fields["model"]),
      thinking: text(fields["thinking"]),
      tools: toolList(fields["tools"]),
      systemPrompt: body,
    },
  };
}
