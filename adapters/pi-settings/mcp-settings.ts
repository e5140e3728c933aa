/**
 * The MCP half of Pi Settings (spec "MCP inventory", "MCP configuration", "MCP actions"): the global mcp.json
 * read purely (domain/pi-settings/mcp-config.ts), written through the settings file path (revisions, lock,
 * trash copy, atomic replace), and the check / sign-in / sign-out actions as settings operations
 * (mcp-actions.ts). HTTP actions share one operation key per normalized server URL, so aliases cannot sign in
 * concurrently against one credential record; stdio ones are keyed by the file and the name.
 */
import type { McpInventory, McpValues, SettingsOperation } from "../../domain/contract/http-pi-settings.ts";
import { parseJsoncDocument } from "../../domain/pi-settings/jsonc-document.ts";
import { deleteMcpServer, editMcpServer, mcpActionTarget, mcpInventory, mcpOperationKey } from "../../domain/pi-settings/mcp-config.ts";
import { ServiceError } from "../../domain/service-error.ts";
import type { HostClock } from "../runtime-host/host-clock.ts";
import { checkMcpServer, loginMcpServer, logoutMcpServer, MCP_CHECK_DEADLINE_MS } from "./mcp-actions.ts";
import { readSettingsFile, writeSettingsFile } from "./settings-file.ts";
import type { OperationContext, SettingsOperations } from "./settings-operations.ts";
import type { agentFiles } from "./settings-runtime.ts";

export interface McpSettingsDeps {
  readonly files: ReturnType<typeof agentFiles>;
  readonly trashDir: string;
  readonly clock: HostClock;
  readonly operations: SettingsOperations;
  /** The backend's process directory: the probe's cwd (spec), not a session's. */
  readonly processCwd: string;
  readonly agentDir: string;
  readonly env: NodeJS.ProcessEnv;
  /** Redacts every known secret from an answer. */
  readonly scrub: <T>(value: T) => T;
}

export interface McpSettings {
  mcp(): McpInventory;
  saveMcp(body: { name: string; revision?: string | null; create?: boolean; values: McpValues }): Promise<McpInventory>;
  deleteMcp(body: { name: string; revision?: string | null }): Promise<McpInventory>;
  mcpAction(body: { name: string; action: "check" | "login" | "logout" }): SettingsOperation;
}

export function createMcpSettings(deps: McpSettingsDeps): McpSettings {
  const { files, trashDir, clock, operations, scrub } = deps;

  const read = (): McpInventory => {
    const state = readSettingsFile(files.mcp);
    const result = mcpInventory(state.text, state.revision);
    const warning = state.blocked ?? result.warning;
    return scrub({ ...result, revision: state.revision, ...(warning !== undefined ? { warning } : {}) });
  };

  const write = async (
    revision: string | null | undefined,
    edit: (text: string) => ReturnType<typeof deleteMcpServer>,
  ): Promise<McpInventory> => {
    await writeSettingsFile(files.mcp, {
      revision,
      edit: (text) => {
        const result = edit(text);
        if (!result.ok) throw new ServiceError(result.code, result.message);
        return result.text;
      },
      trashDir,
      now: clock.now(),
    });
    return read();
  };

  return {
    mcp: read,
    saveMcp: (body) =>
      write(body.revision, (text) => editMcpServer(text, { name: body.name, create: body.create === true, values: body.values })),
    deleteMcp: (body) => write(body.revision, (text) => deleteMcpServer(text, body.name)),
    mcpAction(body) {
      // The target first: a missing server is 404, an invalid one 409, a sign-in on stdio 400, before any operation.
      const text = readSettingsFile(files.mcp).text;
      const found = mcpActionTarget(text, body.name, body.action);
      if (!found.ok) throw new ServiceError(found.code, found.message);
      const parsed = parseJsoncDocument(text, "json", "mcp.json");
      const servers = parsed.ok ? (parsed.value as { mcpServers?: Record<string, unknown> }).mcpServers : undefined;
      const entry = { name: body.name, config: servers?.[body.name] };
      const context = { cwd: deps.processCwd, agentDir: deps.agentDir, env: deps.env };
      const run = (ctx: OperationContext): Promise<object> => {
        switch (body.action) {
          case "check":
            return checkMcpServer(entry, ctx, context);
          case "login":
            return loginMcpServer(entry, ctx, context);
          case "logout":
            return logoutMcpServer(entry, ctx, context);
        }
      };
      const key = mcpOperationKey(found.target, files.mcp);
      // Check and sign-out end within two minutes (spec); sign-in has the operations' 10-minute cap.
      return scrub(operations.start(key, run, body.action === "login" ? {} : { deadlineMs: MCP_CHECK_DEADLINE_MS }));
    },
  };
}
