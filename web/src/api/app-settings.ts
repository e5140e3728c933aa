/**
 * Typed functions for the app settings of the native backend (spec "App settings"): only ui.thinking_default,
 * read and stored through `nativeHttp`, because these settings belong to this computer's Leyline even when the
 * window talks to a remote backend. An empty value means nothing is stored; the client then uses "collapsed".
 */
import type { getAppSetting } from "../../../domain/contract/http-native-app.ts";
import type { RouteResponse } from "../../../domain/contract/http-route.ts";
import type { ThinkingDefault } from "../../../domain/native-app/native-records.ts";
import { nativeHttp } from "./http.ts";

export type { ThinkingDefault } from "../../../domain/native-app/native-records.ts";
export type AppSetting = RouteResponse<typeof getAppSetting>;

const THINKING_DEFAULT_PATH = "/api/leyline/settings/ui.thinking_default";

/** The stored thinking default ("" when none is stored). */
export function getThinkingDefault(signal?: AbortSignal): Promise<AppSetting> {
  return nativeHttp.get<AppSetting>(THINKING_DEFAULT_PATH, signal ? { signal } : undefined);
}

/** Stores the thinking default; answers the stored value. */
export function putThinkingDefault(value: ThinkingDefault): Promise<AppSetting> {
  return nativeHttp.put<AppSetting>(THINKING_DEFAULT_PATH, { value });
}

/** The value the transcript uses: the stored one, collapsed when none is stored (or an unknown value arrives). */
export function effectiveThinkingDefault(setting: Pick<AppSetting, "value"> | null): ThinkingDefault {
  return setting?.value === "expanded" ? "expanded" : "collapsed";
}
