import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../session-files/session-lines.fixture.ts";
import { discoverAgentDefinitions, findProjectAgentsDir } from "./agent-definitions.ts";

function agentFile(dir: string, file: string, frontmatter: string, body = "Prompt."): string {
  fs.mkdirSync(dir, { recursive: true });
  const target = path.join(dir, file);
  fs.writeFileSync(target, `---\n${frontmatter}\n---\n\n${body}\n`);
  return target;
}

/** A user agent dir and a project with `.pi/agents`, the cwd two folders below the project. */
function setup() {
  const root = fs.realpathSync(tempDir("agents"));
  const agentDir = path.join(root, "agent");
  const userAgents = path.join(agentDir, "agents");
  const project = path.join(root, "project");
  const projectAgents = path.join(project, ".pi", "agents");
  const cwd = path.join(project, "src", "deep");
  fs.mkdirSync(cwd, { recursive: true });
  agentFile(
    userAgents,
    "alpha.md",
    "name: alpha\ndescription: User alpha\ntools: read, bash\nmodel: prov/user-model\nthinking: low",
    "Alpha prompt.",
  );
  agentFile(userAgents, "shared.md", "name: shared\ndescription: User shared");
  agentFile(userAgents, "researcher.md", "name: researcher\ndescription: A user researcher");
  agentFile(userAgents, "broken.md", "name: broken");
  fs.writeFileSync(path.join(userAgents, "notes.txt"), "---\nname: notes\ndescription: not markdown\n---\n");
  agentFile(projectAgents, "shared.md", "name: shared\ndescription: Project shared\nmodel: prov/project-model");
  agentFile(projectAgents, "x.md", "name: x\ndescription: Project x\ntools: [read, grep]");
  agentFile(projectAgents, "zz-researcher.md", "name: researcher\ndescription: A project researcher");
  const elsewhere = agentFile(path.join(root, "elsewhere"), "real.md", "name: linked\ndescription: Through a symlink");
  fs.symlinkSync(elsewhere, path.join(projectAgents, "link.md"));
  return { root, agentDir, userAgents, project, projectAgents, cwd, elsewhere };
}

describe("discoverAgentDefinitions", () => {
  it("finds user agents and the nearest project .pi/agents, project agents replacing user agents by name", () => {
    const s = setup();
    const found = discoverAgentDefinitions({ agentDir: s.agentDir, cwd: s.cwd });
    expect(found.projectAgentsDir).toBe(s.projectAgents);
    expect(found.agents.map((a) => [a.name, a.source])).toEqual([
      ["alpha", "user"],
      ["linked", "project"],
      ["shared", "project"],
      ["x", "project"],
    ]);
    const alpha = found.agents[0];
    expect(alpha).toEqual({
      key: `user:${path.join(s.userAgents, "alpha.md")}#alpha`,
      name: "alpha",
      description: "User alpha",
      source: "user",
      path: path.join(s.userAgents, "alpha.md"),
      model: "prov/user-model",
      thinking: "low",
      tools: ["read", "bash"],
      systemPrompt: "Alpha prompt.",
    });
    expect(found.agents.find((a) => a.name === "x")?.tools).toEqual(["read", "grep"]);
    expect(found.agents.find((a) => a.name === "shared")?.model).toBe("prov/project-model");
  });

  it("keys and paths are canonical: a symlinked file is named by its target", () => {
    const s = setup();
    const linked = discoverAgentDefinitions({ agentDir: s.agentDir, cwd: s.cwd }).agents.find((a) => a.name === "linked");
    expect(linked?.path).toBe(s.elsewhere);
    expect(linked?.key).toBe(`project:${s.elsewhere}#linked`);
  });

  it("ignores researcher files (reserved), invalid files and replaced user agents, and says why", () => {
    const s = setup();
    const { agents, ignored } = discoverAgentDefinitions({ agentDir: s.agentDir, cwd: s.cwd });
    expect(agents.some((a) => a.name === "researcher")).toBe(false);
    const reasons = Object.fromEntries(ignored.map((i) => [path.relative(s.root, i.path), i.reason]));
    expect(reasons).toEqual({
      "agent/agents/broken.md": "missing description in frontmatter",
      "agent/agents/researcher.md": "the name researcher is reserved for the built-in agent",
      "project/.pi/agents/zz-researcher.md": "the name researcher is reserved for the built-in agent",
      "agent/agents/shared.md": `replaced by project agent ${path.join(s.projectAgents, "shared.md")}`,
    });
  });

  it("has only user agents outside a project, and nothing when the folders are missing", () => {
    const s = setup();
    const outside = path.join(s.root, "outside");
    fs.mkdirSync(outside);
    const found = discoverAgentDefinitions({ agentDir: s.agentDir, cwd: outside });
    expect(found.projectAgentsDir).toBeNull();
    expect(found.agents.map((a) => a.name)).toEqual(["alpha", "shared"]);
    expect(found.agents.every((a) => a.source === "user")).toBe(true);
    expect(discoverAgentDefinitions({ agentDir: path.join(s.root, "none"), cwd: outside }).agents).toEqual([]);
  });

  it("finds the nearest .pi/agents walking up (a closer one wins)", () => {
    const s = setup();
    expect(findProjectAgentsDir(s.cwd)).toBe(s.projectAgents);
    const closer = path.join(s.project, "src", ".pi", "agents");
    fs.mkdirSync(closer, { recursive: true });
    expect(findProjectAgentsDir(s.cwd)).toBe(closer);
  });
});
