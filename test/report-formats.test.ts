import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { reportJsonSchema } from '../src/report/json-schema.js';
import { hasChromium, openFile } from './helpers/browser.js';
import { REPORT_SCHEMA, schemaErrors } from './helpers/json-schema.js';
import { REPORT_SESSION, REPORT_SPEC, reportWorkspace, type ReportIds } from './helpers/report-workspace.js';
import { Rig } from './helpers/rig.js';

/*
 * `vouch report --format html|json|md`: one model, three renderers. The
 * JSON is the model and must hold against the published schema; the HTML
 * (read from the DOM of a real chromium) and the Markdown must say the same
 * facts. The workspace is the hostile one of test/report.test.ts, and then
 * vouch.yaml changes under its dispatches: each of them drifts, but one
 * ordered after the change.
 */

// The callbacks given to page.evaluate run in the browser, where this exists (see test/report.test.ts).
declare const document: any;

const CI = process.env.CI === 'true';
/** Nothing listens here: a page that fetched it would fail, and test/report.test.ts counts leaks with a server. */
const NO_LEAK = 'http://127.0.0.1:9';

interface Drifted {
  readonly rig: Rig;
  readonly ids: ReportIds & { readonly after: string };
  readonly pinned: string;
  readonly now: string;
}

const specHash = (rig: Rig) =>
  createHash('sha256')
    .update(readFileSync(rig.path('vouch.yaml')))
    .digest('hex');

async function drifted(): Promise<Drifted> {
  const { rig, ids } = await reportWorkspace(NO_LEAK);
  const pinned = specHash(rig);
  await rig.spec(`${REPORT_SPEC}# edited while the fleet worked\n`);
  const ordered = await rig.run(['dispatch', 'new', '--prompt', 'ordered after the edit', '--json']);
  expect(ordered.code, ordered.stderr).toBe(0);
  return { rig, ids: { ...ids, after: ordered.json().id as string }, pinned, now: specHash(rig) };
}

async function jsonReport(rig: Rig): Promise<any> {
  const result = await rig.run(['report', '--format', 'json', '--out', '-']);
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout);
}

describe('vouch report --format json', () => {
  it('writes the model, valid against schema/report.schema.json, with drift flagged on every dispatch whose pin is not the spec in force', async () => {
    const { rig, ids, pinned, now } = await drifted();
    const model = await jsonReport(rig);
    expect(schemaErrors(REPORT_SCHEMA, model)).toEqual([]);
    expect(model).toMatchObject({ kind: 'vouch-report', version: 1, workspace: rig.root, spec: { valid: true, sha256: now, trust: 'allowed', problem: null } });

    // Drift: every dispatch ordered before the edit, and not the one after it; the altered one has no order to read a pin from.
    const byId = new Map<string, any>(model.dispatches.map((d: any) => [d.id, d]));
    expect(byId.get(ids.after).drift).toBeNull();
    for (const id of [ids.parent, ids.child, ids.silent, ids.subagent]) expect(byId.get(id).drift, id).toEqual({ pinned, now });
    expect(byId.get(ids.damaged)).toMatchObject({ state: 'damaged', spec_sha256: null, drift: null });
    expect(model.summary.dispatches).toEqual({ verified: 1, contradicted: 1, ungraded: 3, damaged: 1, open: 5, drift: 4 });

    // The rest of what the report shows, as data.
    expect(model.checks.map((c: any) => [c.id, c.declared, c.now?.status ?? null])).toEqual([
      ['tests', true, 'FAIL'],
      ['lint', true, 'STALE'],
      ['<script>window.__pwned=6</script>', false, null],
    ]);
    expect(model.checks[0].history.map((r: any) => r.verdict)).toEqual(['FAIL', 'PASS', 'FAIL', 'PASS']);
    expect(model.checks[2].history).toEqual([{ intact: false, seq: expect.any(Number), id: '01m8forgedreceipt000000000' }]);
    expect(byId.get(ids.parent).prompt).toBe(`<script>window.__pwned=1</script> "quotes" & <img src="${NO_LEAK}/prompt">`);
    expect(byId.get(ids.child)).toMatchObject({ state: 'terminated', verdict: 'verified', grades: [{ outcome: 'verified' }] });
    expect(byId.get(ids.subagent)).toMatchObject({ verdict: 'contradicted', session: REPORT_SESSION });
    expect(byId.get(ids.damaged)).toMatchObject({ state: 'damaged', verdict: 'damaged' });
    expect(model.sessions).toEqual([expect.objectContaining({ id: REPORT_SESSION, end: 'escaped' })]);
    expect(model.sessions[0].stops.map((s: any) => s.claim?.text)).toContainEqual(
      expect.stringContaining('All done <script>window.__pwned=8</script>, api_key=[REDACTED]'),
    );
    expect(JSON.stringify(model)).not.toContain('sk-live-abcdef123456');
    expect(model.cards).toEqual([
      expect.objectContaining({
        id: ids.card,
        state: 'open',
        decisions: [expect.objectContaining({ decision: 'rescope', why: 'narrower <script>window.__pwned=7</script>' })],
      }),
    ]);
    expect(model.integrity.state).toBe('damaged');
    expect(model.integrity.findings).toEqual(expect.arrayContaining([expect.objectContaining({ kind: 'dispatch', code: 'body_altered' })]));
    expect(model.summary).toMatchObject({
      checks: { PASS: 0, FAIL: 1, STALE: 1, UNKNOWN: 0 },
      sessions: { escaped: 1 },
      cards: { open: 1 },
      integrity: 'damaged',
    });
  }, 180_000);

  it('attack: a model with a field the schema does not name, or a drift that is not {pinned, now}, fails the schema (the test above would catch an undocumented field)', async () => {
    const rig = new Rig().write({ 'src/a.txt': 'good\n' });
    await rig.spec(REPORT_SPEC);
    const model = await jsonReport(rig);
    expect(schemaErrors(REPORT_SCHEMA, model)).toEqual([]);
    expect(model.integrity.state).toBe('nothing_recorded');
    expect(schemaErrors(REPORT_SCHEMA, { ...model, verdict: 'PASS' })).not.toEqual([]);
    const dispatch = { id: 'x', drift: 'yes' };
    expect(schemaErrors(REPORT_SCHEMA, { ...model, dispatches: [dispatch] })).not.toEqual([]);
  });

  it('an invalid vouch.yaml is reported, not fatal: no status judged, and every pin drifts from a spec that is not in force', async () => {
    const rig = new Rig().write({ 'src/a.txt': 'good\n' });
    await rig.spec(REPORT_SPEC);
    const ordered = await rig.run(['dispatch', 'new', '--prompt', 'work', '--json']);
    rig.write({ 'vouch.yaml': 'version: 1\nchecks: []\n' });
    const model = await jsonReport(rig);
    expect(schemaErrors(REPORT_SCHEMA, model)).toEqual([]);
    expect(model.spec).toMatchObject({ valid: false, sha256: null, trust: null, problem: expect.any(String) });
    expect(model.summary.checks).toBeNull();
    expect(model.dispatches[0].drift).toEqual({ pinned: ordered.json().spec_sha256, now: null });
  });

  it('publishes its JSON Schema: schema/report.schema.json is in step with the model, and vouch schema --report prints it', async () => {
    expect(REPORT_SCHEMA).toEqual(reportJsonSchema());
    const rig = new Rig();
    const printed = await rig.run(['schema', '--report']);
    expect(printed.code, printed.stderr).toBe(0);
    expect(printed.json()).toEqual(REPORT_SCHEMA);
    expect((await rig.run(['schema'])).json().title).toBe('vouch.yaml');
  });
});

describe('vouch report --format md', () => {
  it('is a Markdown page with the same facts, drift called out, and every recorded word escaped', async () => {
    const { rig, ids, pinned, now } = await drifted();
    const result = await rig.run(['report', '--format', 'md', '--out', '-']);
    expect(result.code, result.stderr).toBe(0);
    const md = result.stdout;
    expect(md).toMatch(/^# vouch report\n/);
    for (const heading of ['Summary', 'Checks', 'Dispatches', 'Agent sessions', 'Task cards', 'Ledger integrity']) expect(md).toContain(`\n## ${heading}\n`);
    // Drift, loudly, above the sections, and in each dispatch's row.
    expect(md).toContain('> **DRIFT**: 4 dispatches pin a vouch.yaml other than the one in force.');
    expect(md).toContain(`> - ${ids.silent} pins \`${pinned.slice(0, 16)}\`, vouch.yaml is \`${now.slice(0, 16)}\` now: open: it cannot be graded`);
    const row = (id: string) => md.split('\n').find((l) => l.startsWith(`| ${id} |`))!;
    expect(row(ids.silent)).toMatch(/^\| \S+ \| dispatched \| ungraded \| \*\*DRIFT\*\* \|/);
    expect(row(ids.after)).toMatch(/^\| \S+ \| dispatched \| ungraded \| pin in force \|/);
    expect(row(ids.subagent)).toContain('| **CONTRADICTED** | **DRIFT** |');
    expect(md).toMatch(/\| tests \| \*\*FAIL\*\* \|/);

    // attack: hostile words never become markup: no tag, no link, no extra cell, no heading.
    expect(md).not.toMatch(/(?<!\\)<(script|img|iframe|link|svg|b|a)\b/i);
    expect(md).toContain('\\<script\\>window.\\_\\_pwned=1\\</script\\> "quotes" \\& \\<img src="http&#58;//127.0.0.1:9/prompt"\\>');
    expect(md).not.toContain(NO_LEAK);
    expect(md).not.toContain('sk-live-abcdef123456');
    // Every table row has as many cells as its header: a `|` in a claim or a prompt is escaped.
    const tables = md.split('\n\n').filter((block) => block.startsWith('| '));
    expect(tables.length).toBeGreaterThanOrEqual(5);
    for (const table of tables) {
      const [head, ...rows] = table.split('\n');
      const cells = (line: string) => line.split(/(?<!\\)\|/).length;
      for (const line of rows) expect(cells(line), line).toBe(cells(head!));
    }
  }, 180_000);

  it('attack: a claim that spells a table row ("| tests | PASS |") stays inside its own cell', async () => {
    const rig = new Rig().write({
      'src/a.txt': 'bad\n',
      'claim.json': JSON.stringify({ summary: 'done\n| tests | PASS | ok |\n## All green', deliverables: [] }),
    });
    await rig.spec(REPORT_SPEC);
    await rig.run(['verify']);
    const id = (await rig.run(['dispatch', 'new', '--prompt', '| lint | PASS |', '--json'])).json().id as string;
    await rig.run(['dispatch', 'report', id, '--report', 'claim.json']);
    const md = (await rig.run(['report', '--format', 'md', '--out', '-'])).stdout;
    const lines = md.split('\n');
    expect(lines.filter((l) => /^\| tests \|/.test(l))).toEqual([expect.stringMatching(/^\| tests \| \*\*FAIL\*\* \|/)]);
    expect(lines.filter((l) => /^\| lint \|/.test(l))).toEqual([expect.stringMatching(/^\| lint \| PASS \|/)]);
    expect(lines.filter((l) => l.startsWith('## All green'))).toEqual([]);
    expect(md).toContain('done\\\\x0a\\| tests \\| PASS \\| ok \\|\\\\x0a\\#\\# All green');
  });
});

describe('vouch report --format html|json|md: one model', () => {
  it('writes .vouch/report.<format> by default, and refuses a format it does not know', async () => {
    const rig = new Rig().write({ 'src/a.txt': 'good\n' });
    await rig.spec(REPORT_SPEC);
    for (const format of ['json', 'md', 'html']) {
      const written = await rig.run(['report', '--format', format]);
      expect(written.code, written.stderr).toBe(0);
      expect(written.stdout.trim()).toBe(rig.path(`.vouch/report.${format}`));
    }
    expect(JSON.parse(rig.read('.vouch/report.json')).kind).toBe('vouch-report');
    expect(rig.read('.vouch/report.md')).toMatch(/^# vouch report/);
    expect(rig.read('.vouch/report.html')).toMatch(/^<!doctype html>/);
    const wrong = await rig.run(['report', '--format', 'pdf']);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain('--format expects one of html, json, md');
  });

  // Needs Debian's chromium (a real browser); .ci/run installs it, so in CI this always runs and fails if it is missing.
  it.skipIf(!hasChromium && !CI)(
    'the HTML, read from the DOM in chromium, shows the same facts as the JSON: checks, dispatches with verdict and drift, sessions, cards, integrity',
    async () => {
      expect(hasChromium, 'chromium is missing: .ci/run installs it (apt-get install chromium)').toBe(true);
      const { rig } = await drifted();
      const model = await jsonReport(rig);
      const file = join(rig.root, '..', 'report.html');
      expect((await rig.run(['report', '--format', 'html', '--out', file])).code).toBe(0);
      const opened = await openFile(file);
      try {
        const seen = await opened.page.evaluate(() => {
          const text = (el: any) => (el?.textContent ?? '').trim();
          return {
            checks: [...document.querySelectorAll('#checks tr[id^="check-"]')].map((tr: any) => [
              tr.id.slice('check-'.length),
              text(tr.children[1].querySelector('.badge')),
            ]),
            dispatches: [...document.querySelectorAll('.dispatch[id^="dispatch-"]')].map((el: any) => [
              el.id.slice('dispatch-'.length),
              [...el.querySelector(':scope > .head').querySelectorAll('.badge')].map(text),
            ]),
            sessions: [...document.querySelectorAll('.run[id^="session-"]')].map((el: any) => [
              el.id.slice('session-'.length),
              text(el.querySelector('.head .badge')),
            ]),
            cards: [...document.querySelectorAll('#cards tr[id^="card-"]')].map((tr: any) => [
              tr.id.slice('card-'.length),
              text(tr.children[1].querySelector('.badge')),
            ]),
            integrity: text(document.querySelector('#integrity .badge')),
            findings: [...document.querySelectorAll('#integrity tbody tr')].map((tr: any) => [text(tr.children[0]), text(tr.children[3])]),
            driftNote: text(document.querySelector('#summary .drift')),
          };
        });
        const loud = (verdict: string) => (verdict === 'contradicted' || verdict === 'damaged' ? verdict.toUpperCase() : verdict);
        expect(seen.checks).toEqual(model.checks.map((c: any) => [c.id, c.now?.status ?? 'not judged']));
        expect([...seen.dispatches].sort()).toEqual(model.dispatches.map((d: any) => [d.id, [d.state, loud(d.verdict), ...(d.drift ? ['DRIFT'] : [])]]).sort());
        expect(seen.dispatches.filter(([, badges]: any) => badges.includes('DRIFT'))).toHaveLength(model.summary.dispatches.drift);
        expect(seen.sessions).toEqual(model.sessions.map((s: any) => [s.id, s.end === 'escaped' ? 'ESCAPED (stopped unverified)' : s.end]));
        expect(seen.cards).toEqual(model.cards.map((c: any) => [c.id, c.state]));
        expect(seen.integrity).toBe(`${model.integrity.findings.length} finding${model.integrity.findings.length === 1 ? '' : 's'}`);
        expect(seen.findings).toEqual(model.integrity.findings.map((f: any) => [String(f.seq ?? ''), f.code]));
        expect(seen.driftNote).toContain(`${model.summary.dispatches.drift} dispatches pinned a vouch.yaml other than the one in force`);
      } finally {
        await opened.close();
      }
    },
    180_000,
  );
});
