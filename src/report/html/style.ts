/** The report's stylesheet: inline, system fonts only, nothing fetched. */
export const STYLE = `
:root { --fg: #1d2330; --muted: #5f6b7a; --line: #dfe3e8; --bg: #ffffff; --panel: #f6f8fa;
  --pass: #1a7f37; --pass-bg: #dafbe1; --fail: #cf222e; --fail-bg: #ffebe9; --warn: #9a6700; --warn-bg: #fff8c5;
  --unknown: #57606a; --unknown-bg: #eaeef2; --info: #0969da; --info-bg: #ddf4ff; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; color: var(--fg); background: var(--bg); }
header.top { padding: 20px 32px 12px; border-bottom: 1px solid var(--line); background: var(--panel); }
header.top h1 { margin: 0 0 4px; font-size: 22px; }
header.top .meta { color: var(--muted); font-size: 13px; }
nav { margin-top: 10px; display: flex; gap: 16px; flex-wrap: wrap; font-size: 13px; }
nav a { color: var(--info); text-decoration: none; }
main { padding: 8px 32px 48px; max-width: 1280px; }
section { margin-top: 28px; }
h2 { font-size: 18px; border-bottom: 1px solid var(--line); padding-bottom: 6px; }
h3 { font-size: 15px; margin: 18px 0 6px; }
.note { color: var(--muted); font-size: 13px; }
.tiles { display: grid; grid-template-columns: repeat(auto-fit, minmax(220px, 1fr)); gap: 12px; }
.tile { border: 1px solid var(--line); border-radius: 8px; padding: 12px 14px; background: var(--bg); }
.tile h3 { margin: 0 0 8px; font-size: 13px; color: var(--muted); text-transform: uppercase; letter-spacing: .04em; }
.tile .counts { display: flex; flex-wrap: wrap; gap: 6px; }
table { border-collapse: collapse; width: 100%; font-size: 13px; }
th, td { text-align: left; padding: 5px 8px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { color: var(--muted); font-weight: 600; background: var(--panel); }
code, pre, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 12px; }
pre { background: var(--panel); border: 1px solid var(--line); border-radius: 6px; padding: 8px 10px; white-space: pre-wrap; word-break: break-word; margin: 4px 0; max-height: 360px; overflow: auto; }
.badge { display: inline-block; border-radius: 999px; padding: 1px 9px; font-size: 12px; font-weight: 600; white-space: nowrap; }
.b-pass { color: var(--pass); background: var(--pass-bg); }
.b-fail { color: var(--fail); background: var(--fail-bg); }
.b-warn { color: var(--warn); background: var(--warn-bg); }
.b-unknown { color: var(--unknown); background: var(--unknown-bg); }
.b-info { color: var(--info); background: var(--info-bg); }
.strip { display: inline-flex; gap: 2px; vertical-align: middle; }
.strip i { display: inline-block; width: 8px; height: 14px; border-radius: 2px; }
.strip .s-pass { background: var(--pass); } .strip .s-fail { background: var(--fail); } .strip .s-unknown { background: #8c959f; } .strip .s-damaged { background: #000; }
details > summary { cursor: pointer; color: var(--info); font-size: 13px; }
.run { border: 1px solid var(--line); border-radius: 8px; padding: 10px 14px; margin: 12px 0; }
.run > .head { display: flex; flex-wrap: wrap; gap: 8px; align-items: baseline; }
.run > .head .id { font-weight: 600; }
.dispatch { border-left: 3px solid var(--line); margin: 10px 0 10px 18px; padding: 6px 0 6px 14px; }
.dispatch.v-verified { border-left-color: var(--pass); } .dispatch.v-contradicted, .dispatch.v-damaged { border-left-color: var(--fail); } .dispatch.v-ungraded { border-left-color: var(--warn); }
.dispatch .head { display: flex; flex-wrap: wrap; gap: 8px; align-items: baseline; }
.children { margin-left: 8px; }
.vs { display: grid; grid-template-columns: 1fr 1fr; gap: 12px; margin: 8px 0; }
.vs > div { border: 1px solid var(--line); border-radius: 6px; padding: 8px 10px; background: var(--panel); }
.vs h4 { margin: 0 0 6px; font-size: 12px; color: var(--muted); text-transform: uppercase; letter-spacing: .04em; }
.vs ul { margin: 0; padding-left: 18px; }
.chart { display: flex; flex-wrap: wrap; gap: 24px; }
.chart figure { margin: 0; }
.chart figcaption { font-size: 13px; color: var(--muted); }
.legend { display: flex; gap: 12px; font-size: 12px; color: var(--muted); flex-wrap: wrap; }
.legend span::before { content: ""; display: inline-block; width: 10px; height: 10px; border-radius: 2px; margin-right: 4px; background: var(--c); }
.drift { color: var(--fail); font-weight: 600; }
.dispatch.drifted { border-left-style: dashed; }
footer { margin-top: 40px; color: var(--muted); font-size: 12px; border-top: 1px solid var(--line); padding-top: 10px; }
@media (max-width: 800px) { .vs { grid-template-columns: 1fr; } main, header.top { padding-left: 14px; padding-right: 14px; } }
`;
