/**
 * The export's only style sheet, inlined in its `<style>`: system fonts, no `url()`, no `@import`, light and
 * dark schemes, print-friendly.
 */
export const EXPORT_CSS = `
:root { color-scheme: light dark; --fg: #1d2127; --muted: #5f6b7a; --bg: #ffffff; --panel: #f5f7fa; --line: #d9dee5;
  --accent: #2f6fdb; --ok: #1f7a3f; --warn: #9a6200; --bad: #b3261e; }
@media (prefers-color-scheme: dark) {
  :root { --fg: #e3e7ed; --muted: #9aa5b4; --bg: #15181d; --panel: #1e232a; --line: #323a45; --accent: #7aa7ff;
    --ok: #6fcf8f; --warn: #e8b35a; --bad: #ff8a80; }
}
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg); font: 15px/1.55 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
main { max-width: 980px; margin: 0 auto; padding: 24px 20px 64px; }
h1 { font-size: 1.6em; margin: 0 0 8px; overflow-wrap: anywhere; }
h2 { font-size: 1.25em; margin: 32px 0 12px; padding-bottom: 4px; border-bottom: 1px solid var(--line); }
h3 { font-size: 1.05em; margin: 20px 0 8px; }
a { color: var(--accent); }
code, pre { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 0.9em; }
pre { background: var(--panel); border: 1px solid var(--line); border-radius: 6px; padding: 10px; overflow-x: auto; white-space: pre-wrap; overflow-wrap: anywhere; }
table { border-collapse: collapse; width: 100%; margin: 8px 0; font-size: 0.92em; }
th, td { border: 1px solid var(--line); padding: 4px 8px; text-align: left; vertical-align: top; overflow-wrap: anywhere; }
th { background: var(--panel); }
dl.meta { display: grid; grid-template-columns: max-content 1fr; gap: 2px 12px; margin: 8px 0; font-size: 0.92em; }
dl.meta dt { color: var(--muted); }
dl.meta dd { margin: 0; overflow-wrap: anywhere; }
.muted { color: var(--muted); }
.badge { display: inline-block; border: 1px solid var(--line); border-radius: 10px; padding: 0 8px; font-size: 0.82em; background: var(--panel); }
.badge.ok, .verdict-supported { color: var(--ok); }
.badge.warn, .verdict-partial { color: var(--warn); }
.badge.bad, .verdict-unsupported, .verdict-no-evidence { color: var(--bad); }
.phases { display: flex; gap: 6px; margin: 8px 0; padding: 0; list-style: none; }
.phases li { flex: 1; text-align: center; border: 1px solid var(--line); border-radius: 4px; padding: 2px 4px; font-size: 0.85em; color: var(--muted); }
.phases li.done { color: var(--fg); }
.phases li.current { color: var(--bg); background: var(--accent); border-color: var(--accent); }
.report { border: 1px solid var(--line); border-radius: 8px; padding: 4px 18px; }
a.citation, span.citation { font-size: 0.8em; vertical-align: super; text-decoration: none; padding: 0 2px; }
.citation.invalid, .citation.missing { color: var(--bad); text-decoration: line-through; }
details { border: 1px solid var(--line); border-radius: 6px; margin: 8px 0; padding: 4px 10px; }
details > summary { cursor: pointer; font-weight: 600; }
ol.sources { padding-left: 0; list-style: none; }
ol.sources > li { border: 1px solid var(--line); border-radius: 6px; padding: 8px 12px; margin: 8px 0; }
ol.sources > li:target { outline: 2px solid var(--accent); }
ol.sources > li.excluded { opacity: 0.8; }
.evidence { margin: 6px 0 0; padding-left: 10px; border-left: 3px solid var(--line); }
.entry { margin: 14px 0; }
.entry > .role { font-size: 0.8em; font-weight: 700; text-transform: uppercase; letter-spacing: 0.04em; color: var(--muted); }
.entry.user > .body { background: var(--panel); border-radius: 8px; padding: 2px 14px; }
.entry.note { color: var(--muted); font-size: 0.9em; }
img.embedded { max-width: 100%; height: auto; border: 1px solid var(--line); border-radius: 4px; }
@media print { details { break-inside: avoid; } details:not([open]) > *:not(summary) { display: block; } }
`;
