/**
 * The native backend's network access (spec "Network access"): the sharing switch and port saved in
 * leyline.sqlite's app_settings, and the TCP relay (tcp-relay.ts) that shares the origin while the switch is on.
 *
 * Rules it keeps:
 * - Operations (get, update, the restore when the origin starts listening, close) run one at a time, in order, on
 *   one promise queue; an update resolves its omitted fields inside its turn (domain/native-app/network-access.ts
 *   plans it), so a port-only request keeps a switch change another client made just before.
 * - A live port change binds the replacement, saves both settings, then closes the old relay. A failed bind keeps
 *   the old relay and the saved settings; a failed save keeps them too (the new relay is closed). Disabling saves,
 *   then closes; a failed save keeps the relay. Listener and persistence failures throw a ServiceError
 *   (invalid_request: 400) with a clear message and stay in `error` until the next successful update.
 * - `originListening` (the app's onListen hook) records the origin's address and restores the saved switch and
 *   port; a failure there is recorded in `error`, sharing stays off and the saved preference is untouched.
 * - A closing relay stops listening at once; its connections finish the request in flight (the origin activity
 *   says when) and are closed, destroyed after a grace at the latest. `close()` (app shutdown) closes the relay and
 *   waits for its connections.
 * - `extraHosts()`: the Host values the origin accepts besides loopback (api/origin-policy.ts): the relay's names
 *   while sharing is on, the interface addresses with the origin's own port when the origin listens outside loopback.
 */
import type http from "node:http";
import os from "node:os";
import type { Kysely } from "kysely";
import { readAppSettings, writeAppSettings } from "../native-app/app-settings-store.ts";
import type { LeylineDatabase } from "../sqlite/leyline-database.ts";
import {
  hasUpdateField,
  isDirectAccess,
  listenFailureMessage,
  NETWORK_ACCESS_KEYS,
  type NetworkAccess,
  networkAccessHosts,
  type NetworkAccessUpdate,
  type OriginAddress,
  parseSavedNetworkAccess,
  planNetworkAccessUpdate,
  relayTargetHost,
  type SavedNetworkAccess,
  savedNetworkAccessValues,
  sharingUrls,
  UNAVAILABLE_MESSAGE,
  UPDATE_REQUIRED,
} from "../../domain/native-app/network-access.ts";
import { ServiceError } from "../../domain/service-error.ts";
import { interfaceAddresses, type InterfaceTable, systemInterfaces } from "./interface-addresses.ts";
import { type OriginActivity, trackOriginActivity } from "./origin-activity.ts";
import { RelayListenError, startTcpRelay, type TcpRelay } from "./tcp-relay.ts";

/** The address the relay listens on in production (every IPv4 interface). */
export const DEFAULT_RELAY_HOST = "0.0.0.0";
/** The environment variable that overrides it (tests of the real server process bind 127.0.0.1). */
export const RELAY_HOST_ENV = "LEYLINE_NETWORK_ACCESS_HOST";

export const SHUTTING_DOWN_MESSAGE = "Network access is shutting down";

/** What buildApp's callers may set (BuildAppOptions.networkAccess). */
export interface NetworkAccessOptions {
  /** The address the relay listens on. Default: LEYLINE_NETWORK_ACCESS_HOST, else "0.0.0.0". */
  readonly bindHost?: string;
  /** The interface table (urls, allowed hosts). Default: os.networkInterfaces(). */
  readonly interfaces?: () => InterfaceTable;
  /** The machine's host name (allowed hosts). Default: os.hostname(). */
  readonly hostname?: () => string;
  /** How long a closing relay's connections may take to finish. Default 1.5 s. */
  readonly closeGraceMs?: number;
}

export interface NetworkAccessServiceOptions extends NetworkAccessOptions {
  /** leyline.sqlite, migrated (ReadSide.database()). */
  readonly database: () => Promise<Kysely<LeylineDatabase>>;
  /** Write time of app settings, in milliseconds. Default Date.now. */
  readonly now?: () => number;
  /** Failures worth a log line (a relay listener error after it started). */
  readonly onError?: (error: unknown, message: string) => void;
}

export interface NetworkAccessService {
  /** The state once earlier operations are done; changes nothing. */
  get(): Promise<NetworkAccess>;
  /** Applies an update (see the module comment); throws ServiceError (400) on invalid input or failures. */
  update(update: NetworkAccessUpdate): Promise<NetworkAccess>;
  /**
   * The origin listens at `origin` (null: not on a TCP address): records it, tracks the activity of `server`, and
   * restores the saved switch and port. Resolves when the restore is done (it never rejects).
   */
  originListening(origin: OriginAddress | null, server?: http.Server): Promise<void>;
  /** Host values (`host:port`) the origin accepts besides its built-in ones; read on every request. */
  extraHosts(): string[];
  /** Whether the origin itself listens outside loopback (directAccess): any IP-literal Host is then allowed. */
  directAccess(): boolean;
  /** Closes the relay and waits for its connections (app shutdown). Later updates are refused. */
  close(): Promise<void>;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export function createNetworkAccessService(options: NetworkAccessServiceOptions): NetworkAccessService {
  const bindHost = options.bindHost ?? DEFAULT_RELAY_HOST;
  const interfaces = options.interfaces ?? systemInterfaces;
  const hostname = options.hostname ?? (() => os.hostname());
  const now = options.now ?? Date.now;

  let origin: OriginAddress | null = null;
  let activity: OriginActivity | null = null;
  let relay: TcpRelay | null = null;
  let error = "";
  let closing: Promise<void> | null = null;
  const retiring = new Set<TcpRelay>();
  let tail: Promise<unknown> = Promise.resolve();

  /** Runs `operation` after every earlier one. */
  const serial = <T>(operation: () => Promise<T>): Promise<T> => {
    const run = tail.then(operation);
    tail = run.catch(() => undefined);
    return run;
  };

  /** Records a failure and throws it as a 400. */
  const fail = (message: string, cause?: unknown): never => {
    error = message;
    throw new ServiceError("invalid_request", message, { cause });
  };

  const database = async (): Promise<Kysely<LeylineDatabase>> => {
    try {
      return await options.database();
    } catch (cause) {
      return fail(`Could not open the network access settings: ${messageOf(cause)}`, cause);
    }
  };

  const readSaved = async (db: Kysely<LeylineDatabase>): Promise<SavedNetworkAccess> => {
    try {
      return parseSavedNetworkAccess(await readAppSettings(db, NETWORK_ACCESS_KEYS));
    } catch (cause) {
      return fail(`Could not read the network access settings: ${messageOf(cause)}`, cause);
    }
  };

  const save = async (db: Kysely<LeylineDatabase>, values: Partial<SavedNetworkAccess>): Promise<void> => {
    try {
      await writeAppSettings(db, savedNetworkAccessValues(values), now());
    } catch (cause) {
      fail(`Could not save the network access settings: ${messageOf(cause)}`, cause);
    }
  };

  const startRelay = async (at: OriginAddress, port: number): Promise<TcpRelay> => {
    try {
      return await startTcpRelay({
        host: bindHost,
        port,
        target: { host: relayTargetHost(at.address), port: at.port },
        ...(activity !== null ? { originIdle: activity.idle } : {}),
        ...(options.closeGraceMs !== undefined ? { closeGraceMs: options.closeGraceMs } : {}),
        onError: (cause) => options.onError?.(cause, "network access relay error"),
      });
    } catch (cause) {
      const code = cause instanceof RelayListenError ? cause.code : undefined;
      const detail = cause instanceof RelayListenError && cause.cause !== undefined ? messageOf(cause.cause) : messageOf(cause);
      return fail(listenFailureMessage(code, bindHost, port, detail), cause);
    }
  };

  /** Closes a relay: it stops listening now; its connections drain in the background (`close()` waits for them). */
  const retire = (old: TcpRelay): void => {
    retiring.add(old);
    void old.close();
    void old.drained.then(() => retiring.delete(old));
  };

  const view = (saved: SavedNetworkAccess): NetworkAccess => {
    const active = relay;
    return {
      available: origin !== null,
      enabled: active !== null,
      port: active?.port ?? null,
      configuredPort: saved.port,
      urls: active !== null ? sharingUrls(interfaceAddresses(interfaces()), active.port) : [],
      directAccess: origin !== null && isDirectAccess(origin.address),
      error,
    };
  };

  const applyUpdate = async (update: NetworkAccessUpdate): Promise<NetworkAccess> => {
    const db = await database();
    const saved = await readSaved(db);
    const plan = planNetworkAccessUpdate({ saved, relayPort: relay?.port ?? null, available: origin !== null }, update);
    let next: SavedNetworkAccess;
    switch (plan.type) {
      case "save-port":
        await save(db, { port: plan.port });
        next = { ...saved, port: plan.port };
        break;
      case "disable":
        await save(db, { enabled: false, port: plan.port });
        if (relay !== null) retire(relay);
        relay = null;
        next = { enabled: false, port: plan.port };
        break;
      case "unavailable":
        return fail(UNAVAILABLE_MESSAGE);
      case "keep":
        if (plan.save) await save(db, { enabled: true, port: plan.port });
        next = { enabled: true, port: plan.port };
        break;
      case "bind": {
        if (origin === null) return fail(UNAVAILABLE_MESSAGE);
        const fresh = await startRelay(origin, plan.port);
        try {
          await save(db, { enabled: true, port: plan.port });
        } catch (cause) {
          retire(fresh);
          throw cause;
        }
        const old = relay;
        relay = fresh;
        if (old !== null) retire(old);
        next = { enabled: true, port: plan.port };
        break;
      }
    }
    error = "";
    return view(next);
  };

  const restore = async (): Promise<void> => {
    if (closing !== null || origin === null || relay !== null) return;
    try {
      const saved = await readSaved(await database());
      if (!saved.enabled) return;
      relay = await startRelay(origin, saved.port);
    } catch (cause) {
      error = `Network access was not restored: ${messageOf(cause)}`;
      options.onError?.(cause, error);
    }
  };

  return {
    get: () =>
      serial(async () => {
        const db = await options.database();
        return view(parseSavedNetworkAccess(await readAppSettings(db, NETWORK_ACCESS_KEYS)));
      }).catch((cause: unknown) => {
        throw cause instanceof ServiceError
          ? cause
          : new ServiceError("invalid_request", `Could not read the network access settings: ${messageOf(cause)}`, { cause });
      }),

    update(update) {
      if (!hasUpdateField(update)) return Promise.reject(new ServiceError("invalid_request", UPDATE_REQUIRED));
      if (closing !== null) return Promise.reject(new ServiceError("invalid_request", SHUTTING_DOWN_MESSAGE));
      return serial(() => applyUpdate(update));
    },

    originListening(at, server) {
      if (closing !== null || origin !== null || at === null) return Promise.resolve();
      origin = at;
      if (server !== undefined) activity = trackOriginActivity(server);
      return serial(restore);
    },

    directAccess() {
      return origin !== null && isDirectAccess(origin.address);
    },

    extraHosts() {
      const active = relay;
      const direct = origin !== null && isDirectAccess(origin.address);
      if (active === null && !direct) return [];
      return networkAccessHosts({
        addresses: interfaceAddresses(interfaces()),
        hostname: hostname(),
        relayPort: active?.port ?? null,
        origin,
      });
    },

    close() {
      closing ??= serial(async () => {
        if (relay !== null) retire(relay);
        relay = null;
        await Promise.all([...retiring].map((old) => old.drained));
        activity?.stop();
      });
      return closing;
    },
  };
}
