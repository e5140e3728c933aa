/**
 * Read-only bash rules for curl and wget: fetching to standard output is read-only; saving a download,
 * headers, cookies, traces or logs to a file is not, and neither is reading options from a config file
 * (which could hold such options). "-" and the devices (/dev/null, /dev/stdout, ...) are not files.
 * Remote side effects (POST, PUT, uploads) are out of scope: the rule is about local files.
 */
import {
  findOption,
  isStdoutTarget,
  OK,
  own,
  type ProgramRule,
  refuse,
  refuseComputedOptions,
  scanOptions,
  type ScannedArgs,
  type ScannedOption,
  shown,
} from "./readonly-rules.ts";

const CURL_VALUE_OPTIONS = [
  "--output",
  "--dump-header",
  "--cookie-jar",
  "--cookie",
  "--config",
  "--trace",
  "--trace-ascii",
  "--stderr",
  "--libcurl",
  "--etag-save",
  "--etag-compare",
  "--hsts",
  "--alt-svc",
  "--output-dir",
  "--write-out",
  "--data",
  "--data-raw",
  "--data-binary",
  "--data-urlencode",
  "--data-ascii",
  "--json",
  "--header",
  "--request",
  "--user",
  "--user-agent",
  "--referer",
  "--url",
  "--max-time",
  "--connect-timeout",
  "--retry",
  "--retry-delay",
  "--retry-max-time",
  "--proxy",
  "--form",
  "--form-string",
  "--range",
  "--upload-file",
  "--cert",
  "--key",
  "--cacert",
  "--capath",
  "--resolve",
  "--connect-to",
  "--interface",
  "--limit-rate",
  "--max-filesize",
  "--max-redirs",
  "--oauth2-bearer",
  "--time-cond",
  "--variable",
  "--url-query",
  "--continue-at",
  "--proxy-user",
];

/** Options whose value is a file curl writes ("-" or a device is fine). */
const CURL_FILE_OUTPUTS: Readonly<Record<string, string>> = {
  "-o": "saves the download to a file",
  "--output": "saves the download to a file",
  "-D": "writes the response headers to a file",
  "--dump-header": "writes the response headers to a file",
  "-c": "writes cookies to a file",
  "--cookie-jar": "writes cookies to a file",
  "--trace": "writes a trace to a file",
  "--trace-ascii": "writes a trace to a file",
  "--stderr": "writes its error output to a file",
  "--libcurl": "writes C source to a file",
  "--etag-save": "writes an ETag to a file",
  "--hsts": "writes an HSTS cache file",
  "--alt-svc": "writes an Alt-Svc cache file",
};

/** Options that write files (or read options that could) whatever their value. */
const CURL_ALWAYS_WRITES: Readonly<Record<string, string>> = {
  "-O": "saves the download to a file",
  "--remote-name": "saves the download to a file",
  "--remote-name-all": "saves downloads to files",
  "--output-dir": "saves downloads into a directory",
  "-K": "reads options from a config file, which cannot be checked",
  "--config": "reads options from a config file, which cannot be checked",
};

/** The option name without curl's `--expand-` prefix (which applies variables to any option). */
function curlName(option: ScannedOption): string {
  return option.name.startsWith("--expand-") ? `--${option.name.slice("--expand-".length)}` : option.name;
}

const CURL_KNOWN = new Set([...Object.keys(CURL_FILE_OUTPUTS), ...Object.keys(CURL_ALWAYS_WRITES)]);

/**
 * The entry of `table` an option names: exactly, or as an abbreviation (a prefix) when the option is not
 * itself one of the listed names (`--output` is not an abbreviation of `--output-dir`).
 */
function matching(scanned: ScannedArgs, table: Readonly<Record<string, string>>): { option: ScannedOption; what: string } | null {
  for (const option of scanned.options) {
    const name = curlName(option);
    const exact = own(table, name);
    if (exact !== undefined) return { option, what: exact };
    if (CURL_KNOWN.has(name) || !name.startsWith("--") || name.length < 3) continue;
    const abbreviated = Object.entries(table).find(([key]) => key.startsWith(name));
    if (abbreviated) return { option, what: abbreviated[1] };
  }
  return null;
}

export const curl: ProgramRule = (program, args) => {
  const scanned = scanOptions(args, {
    shortValue: "AbcCdDeEFHKmoPQrTuUwxXYyzt",
    longValue: [...CURL_VALUE_OPTIONS, ...CURL_VALUE_OPTIONS.map((name) => `--expand-${name.slice(2)}`)],
  });
  const always = matching(scanned, CURL_ALWAYS_WRITES);
  if (always) return refuse(`${program} ${always.option.name} ${always.what}`);
  for (const option of scanned.options) {
    const name = curlName(option);
    const what = matching({ ...scanned, options: [option] }, CURL_FILE_OUTPUTS)?.what;
    if (what !== undefined) {
      const target = option.value?.value;
      const stderr = name === "--trace" || name === "--trace-ascii" ? target === "%" : false;
      if (!isStdoutTarget(target) && !stderr) {
        return refuse(`${program} ${option.name}${option.value ? ` ${shown(option.value.raw)}` : ""} ${what}`);
      }
    }
    if (name === "-w" || name === "--write-out") {
      const format = option.value?.value;
      if (format === null || format === undefined || format.startsWith("@") || format.includes("%output{")) {
        return refuse(`${program} ${option.name} with this format can read or write files`);
      }
    }
  }
  return refuseComputedOptions(program, scanned) ?? OK;
};

const WGET_WRITING_FLAGS = [
  "-r",
  "--recursive",
  "-m",
  "--mirror",
  "-p",
  "--page-requisites",
  "-k",
  "--convert-links",
  "-K",
  "--backup-converted",
  "-b",
  "--background",
  "-e",
  "--execute",
  "--config",
  "--save-cookies",
  "--warc-file",
  "--rejected-log",
  "-x",
  "--force-directories",
  "--backups",
];

export const wget: ProgramRule = (program, args) => {
  // `-nv`, `-nc`, `-nd`, `-nH`, `-np`: `-n` takes the following letter (none of them writes).
  const plain = args.filter((arg) => !(arg.value !== null && /^-n[A-Za-z]$/.test(arg.value)));
  const scanned = scanOptions(plain, {
    shortValue: "OoaiBtTwPUeQlARDIX",
    longValue: [
      "--output-document",
      "--output-file",
      "--append-output",
      "--input-file",
      "--execute",
      "--config",
      "--save-cookies",
      "--load-cookies",
      "--warc-file",
      "--rejected-log",
      "--directory-prefix",
      "--user-agent",
      "--header",
      "--post-data",
      "--post-file",
      "--tries",
      "--timeout",
      "--wait",
      "--user",
      "--password",
      "--method",
      "--body-data",
      "--body-file",
      "--base",
      "--referer",
      "--level",
      "--accept",
      "--reject",
      "--domains",
      "--include-directories",
      "--exclude-directories",
      "--quota",
      "--limit-rate",
    ],
  });
  const writing = findOption(scanned, ...WGET_WRITING_FLAGS);
  if (writing) return refuse(`${program} ${writing.name} can write files`);
  const log = findOption(scanned, "-o", "--output-file", "-a", "--append-output");
  if (log && (!isStdoutTarget(log.value?.value) || log.value?.value === "-")) {
    return refuse(`${program} ${log.name} writes a log file`);
  }
  const output = findOption(scanned, "-O", "--output-document");
  if (output) {
    if (!isStdoutTarget(output.value?.value)) {
      return refuse(`${program} ${output.name}${output.value ? ` ${shown(output.value.raw)}` : ""} saves the download to a file`);
    }
  } else if (!findOption(scanned, "--spider")) {
    return refuse(`${program} saves the download to a file (use -O - to print it)`);
  }
  return refuseComputedOptions(program, scanned) ?? OK;
};

export const NETWORK_RULES: Readonly<Record<string, ProgramRule>> = { curl, wget };
