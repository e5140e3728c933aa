// Which Node runs Leyline. The server, its workers and the tests need Node >= 22.19 (pi 1.x's floor, and
// node:sqlite without a flag). `npm ci` installs one (the npm package `node`, as node_modules/.bin/node) and npm
// scripts put node_modules/.bin first on PATH, so `npm start` and `npm test` use it whatever Node ran npm.
// Started some other way (`node scripts/start.mjs` with an older Node), the installed one is used instead.
import fs from "node:fs";
import path from "node:path";

export const MINIMUM_NODE = "22.19.0";

/** True when `version` ("22.23.3" or "v22.23.3") is at least MINIMUM_NODE. */
export function isSupportedNode(version) {
  const [major, minor] = version.replace(/^v/, "").split(".").map(Number);
  const [minMajor, minMinor] = MINIMUM_NODE.split(".").map(Number);
  return major > minMajor || (major === minMajor && minor >= minMinor);
}

/** The Node binary to run the server with: this one when it is recent enough, else the one npm installed. */
export function serverNode(root) {
  if (isSupportedNode(process.versions.node)) return process.execPath;
  const installed = path.join(root, "node_modules", ".bin", "node");
  if (fs.existsSync(installed)) return fs.realpathSync(installed);
  throw new Error(
    `Leyline needs Node >= ${MINIMUM_NODE} (this is ${process.version}) and found none in node_modules: run \`npm ci\` first.`,
  );
}
