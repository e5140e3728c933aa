/**
 * Agent definition discovery, as pi's subagent example does it with agent scope "both":
 * - user agents: `<agentDir>/agents/*.md`;
 * - project agents: `*.md` in the nearest `.pi/agents/` folder, walking up from the cwd;
 * - a file needs frontmatter `name` and `description` (domain/subagent/agent-definition.ts);
 * - a project agent replaces a user agent of the same name; within one folder the last file by name wins.
 *
 * Differences from the example, on purpose: files are read in name order (the example takes the folder's
 * order, so its winner among duplicates varies); a file whose frontmatter cannot be read is skipped instead of
 * failing the whole discovery; paths are canonical (symlinks resolved), because agent keys contain them.
 *
 * Files named `researcher` (after trimming) are ignored: the built-in researcher
 * (domain/subagent/researcher-agent.ts) cannot be replaced, so such a file never runs and is not listed.
 * Every file that is not used is reported in `ignored`, with the reason.
 */
import fs from "node:fs";
import path from "node:path";
import { parseAgentDefinition } from "../../domain/subagent/agent-definition.ts";
import { isReservedAgentName } from "../../domain/subagent/researcher-agent.ts";
import type { AgentDefinition, AgentDefinitionSource } from "../../domain/subagent/subagent-types.ts";
import { canonicalPath } from "./subagent-context.ts";

export interface IgnoredAgentFile {
  readonly source: AgentDefinitionSource;
  readonly path: string;
  readonly reason: string;
}

export interface AgentDiscovery {
  /** Agents in use, sorted by name. */
  readonly agents: AgentDefinition[];
  readonly userAgentsDir: string;
  /** The nearest `.pi/agents` folder from the cwd up, or null. */
  readonly projectAgentsDir: string | null;
  readonly ignored: IgnoredAgentFile[];
}

export interface DiscoverAgentsOptions {
  /** pi's agent dir (PI_CODING_AGENT_DIR, default ~/.pi/agent). */
  readonly agentDir: string;
  readonly cwd: string;
}

function isDirectory(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/** The nearest `.pi/agents` folder from `cwd` up, or null. */
export function findProjectAgentsDir(cwd: string): string | null {
  let current = path.resolve(cwd);
  for (;;) {
    const candidate = path.join(current, ".pi", "agents");
    if (isDirectory(candidate)) return candidate;
    const parent = path.dirname(current);
    if (parent === current) return null;
    current = parent;
  }
}

function loadAgentsFromDir(dir: string, source: AgentDefinitionSource, ignored: IgnoredAgentFile[]): AgentDefinition[] {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  const agents: AgentDefinition[] = [];
  const names = entries
    .filter((e) => e.name.endsWith(".md") && (e.isFile() || e.isSymbolicLink()))
    .map((e) => e.name)
    .sort();
  for (const name of names) {
    const file = canonicalPath(path.join(dir, name));
    let content: string;
    try {
      content = fs.readFileSync(file, "utf8");
    } catch (error) {
      ignored.push({ source, path: file, reason: `unreadable: ${(error as NodeJS.ErrnoException).code ?? String(error)}` });
      continue;
    }
    const parsed = parseAgentDefinition(content, { source, path: file });
    if (!parsed.ok) {
      ignored.push({ source, path: file, reason: parsed.reason });
    } else if (isReservedAgentName(parsed.definition.name)) {
      ignored.push({ source, path: file, reason: `the name ${parsed.definition.name} is reserved for the built-in agent` });
    } else {
      agents.push(parsed.definition);
    }
  }
  return agents;
}

export function discoverAgentDefinitions(options: DiscoverAgentsOptions): AgentDiscovery {
  const ignored: IgnoredAgentFile[] = [];
  const userAgentsDir = path.join(options.agentDir, "agents");
  const projectAgentsDir = findProjectAgentsDir(canonicalPath(options.cwd));
  const byName = new Map<string, AgentDefinition>();
  const add = (agent: AgentDefinition): void => {
    const replaced = byName.get(agent.name);
    if (replaced !== undefined) {
      ignored.push({ source: replaced.source, path: replaced.path, reason: `replaced by ${agent.source} agent ${agent.path}` });
    }
    byName.set(agent.name, agent);
  };
  for (const agent of loadAgentsFromDir(userAgentsDir, "user", ignored)) add(agent);
  // When the agent dir is itself some project's `.pi` (PI_CODING_AGENT_DIR=<project>/.pi), its files are user agents.
  if (projectAgentsDir !== null && canonicalPath(projectAgentsDir) !== canonicalPath(userAgentsDir)) {
    for (const agent of loadAgentsFromDir(projectAgentsDir, "project", ignored)) add(agent);
  }
  const agents = [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { agents, userAgentsDir, projectAgentsDir, ignored };
}
