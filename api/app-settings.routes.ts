/**
 * App settings of the native backend (spec "App settings"; contract in domain/contract/http-native-app.ts):
 * only ui.thinking_default (collapsed | expanded; "" = unset), stored in leyline.sqlite's app_settings. Another
 * key → 404; another value → 400. Network access has its own routes (network-access.routes.ts).
 */
import type { FastifyPluginAsync } from "fastify";
import { getAppSetting, putAppSetting } from "../domain/contract/http-native-app.ts";
import { isThinkingDefault, THINKING_DEFAULT_KEY, thinkingDefaultOf } from "../domain/native-app/native-records.ts";
import { readAppSetting, writeAppSettings } from "../adapters/native-app/app-settings-store.ts";
import { typed } from "./contract.ts";
import type { NativeRoutesOptions } from "./connections.routes.ts";
import { HttpError } from "./http-error.ts";

function requireKnownKey(key: string): typeof THINKING_DEFAULT_KEY {
  if (key !== THINKING_DEFAULT_KEY) throw new HttpError("setting_not_found", `Unknown setting: ${key}`);
  return key;
}

export const appSettingsRoutes: FastifyPluginAsync<NativeRoutesOptions> = async (app, options) => {
  const now = options.now ?? Date.now;
  const database = async () => (await options.readSide.database()).db;
  const api = typed(app);

  api.get(getAppSetting.url, { schema: getAppSetting.schema }, async (request) => {
    const key = requireKnownKey(request.params.key);
    return { key, value: thinkingDefaultOf(await readAppSetting(await database(), key)) };
  });

  api.put(putAppSetting.url, { schema: putAppSetting.schema }, async (request) => {
    const key = requireKnownKey(request.params.key);
    const value = request.body.value;
    if (!isThinkingDefault(value)) throw new HttpError("invalid_request", 'value must be "collapsed" or "expanded"');
    await writeAppSettings(await database(), { [key]: value }, now());
    return { key, value };
  });
};
