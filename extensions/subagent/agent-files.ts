/**
 * The agents the subagent tool can run: the reserved built-in `researcher` (domain/subagent/researcher-agent.ts),
 * which no file can replace, and the agents defined by Markdown files, as pi's subagent example finds them with
 * scope "both": `<agentDir>/agents/*.md` (user), then the nearest `.pi/agents/*.md` from the cwd up (project;
 * a project agent replaces a user agent of the same name). Files are read in name order; a file without the
 * required frontmatter, or named `researcher`, is skipped. This mirrors adapters/subagents/agent-definitions.ts,
 * which the extension may not import (layer rules); both parse with domain/subagent/agent-definition.ts.
 */
import fs from "node:fs";
import path from "node:path";
import { parseAgentDefinition } from "../../domain/subagent/agent-definition.ts";
import { isReservedAgentName, RESEARCHER_AGENT, RESEARCHER_AGENT_NAME } from "../../domain/subagent/researcher-agent.ts";
import type { AgentDefinition, AgentDefinitionSource } from "../../domain/subagent/subagent-types.ts";

export type RunnableAgent =
  | { kind: "researcher"; name: typeof RESEARCHER_AGENT_NAME; definition: typeof RESEARCHER_AGENT }
  | { kind: "file"; name: string; definition: AgentDefinition };

function canonical(file: string): string {
  try {
    return fs.realpathSync(file);
  } catch {
    return path.resolve(file);
  }
}

function isDirectory(dir: string): boolean {
  try {
    return fs.statSync(dir).isDirectory();
  } catch {
    return false;
  }
}

/** The nearest `.pi/agents` folder from `cwd` up, or null. */
export function nearestProjectAgentsDir(cwd: string): string | null {
  let current = path.resolve(cwd);
  for (;;) {
    const candidate = path.join(current, ".pi", "agents");
    if (isDirectory(candidate)) return candidate;
    const parent = path.dirname(current);
    if (parent === current) return null;
    current = parent;
  }
}

function readAgents(dir: string, source: AgentDefinitionSource): AgentDefinition[] {
  let names: string[];
  try {
    names = fs
      .readdirSync(dir, { withFileTypes: true })
      .filter((e) => e.name.endsWith(".md") && (e.isFile() || e.isSymbolicLink()))
      .map((e) => e.name)
      .sort();
  } catch {
    return [];
  }
  const agents: AgentDefinition[] = [];
  for (const name of names) {
    const file = canonical(path.join(dir, name));
    let content: string;
    try {
      content = fs.readFileSync(file, "utf8");
    } catch {
      continue;
    }
    const parsed = parseAgentDefinition(content, { source, path: file });
    if (parsed.ok && !isReservedAgentName(parsed.definition.name)) agents.push(parsed.definition);
  }
  return agents;
}

/** Every file-defined agent for `cwd`, by name (project over user). */
export function discoverFileAgents(agentDir: string, cwd: string): Map<string, AgentDefinition> {
  const byName = new Map<string, AgentDefinition>();
  const userDir = path.join(agentDir, "agents");
  for (const agent of readAgents(userDir, "user")) byName.set(agent.name, agent);
  const projectDir = nearestProjectAgentsDir(canonical(cwd));
  if (projectDir !== null && canonical(projectDir) !== canonical(userDir)) {
    for (const agent of readAgents(projectDir, "project")) byName.set(agent.name, agent);
  }
  return byName;
}

/** The agent a task names: the built-in researcher for its reserved name, else a file agent, else null. */
export function findAgent(name: string, fileAgents: ReadonlyMap<string, AgentDefinition>): RunnableAgent | null {
  const trimmed = name.trim();
  if (isReservedAgentName(trimmed)) return { kind: "researcher", name: RESEARCHER_AGENT_NAME, definition: RESEARCHER_AGENT };
  const definition = fileAgents.get(trimmed);
  return definition ? { kind: "file", name: definition.name, definition } : null;
}

/** Agent names for messages: the researcher first, then the file agents by name. */
export function agentNames(fileAgents: ReadonlyMap<string, AgentDefinition>): string[] {
  return [RESEARCHER_AGENT_NAME, ...[...fileAgents.keys()].sort()];
}
