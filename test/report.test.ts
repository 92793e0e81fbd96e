import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasChromium, openFile } from './helpers/browser.js';
import { REPORT_SESSION, REPORT_SPEC, reportWorkspace, type ReportIds } from './helpers/report-workspace.js';
import { Rig } from './helpers/rig.js';

/*
 * `vouch report`: one self-contained HTML file, opened in a real browser
 * (Debian's chromium through playwright-core). Everything an agent or a
 * hook payload can put on record is hostile here: prompts, claims, close
 * reasons, session ids, check output, and a forged receipt with a check id
 * no spec would accept. A local server counts any request that leaves the
 * page; there must be none.
 */

// The callbacks given to page.evaluate run in the browser, where these exist. Declared here, in this
// module only: a `lib="dom"` reference would give the whole program the DOM's fetch types instead of Node's.
declare const document: any;
declare const window: any;
declare function getComputedStyle(element: unknown): { backgroundColor: string };

const CI = process.env.CI === 'true';
if (!hasChromium && !CI) console.warn('SKIPPING the report browser test: /usr/bin/chromium is missing (apt-get install chromium; .ci/run installs it)');

let leaks = 0;
const leakServer = createServer((_req, res) => {
  leaks++;
  res.end('leaked');
});
let leakUrl = '';
beforeAll(async () => {
  await new Promise<void>((resolve) => leakServer.listen(0, '127.0.0.1', resolve));
  leakUrl = `http://127.0.0.1:${(leakServer.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => leakServer.close(() => resolve())));

const SPEC = REPORT_SPEC;
const SESSION = REPORT_SESSION;

interface Built {
  readonly rig: Rig;
  readonly file: string;
  readonly page: string;
  readonly ids: ReportIds;
}

async function build(): Promise<Built> {
  const { rig, ids } = await reportWorkspace(leakUrl);
  const file = join(rig.root, '..', 'report.html');
  const result = await rig.run(['report', '--out', file]);
  expect(result.code, result.stderr).toBe(0);
  expect(result.stdout.trim()).toBe(file);
  return { rig, file, page: readFileSync(file, 'utf8'), ids };
}

describe('vouch report', () => {
  it('is one self-contained file that escapes everything recorded', async () => {
    const { page, ids } = await build();
    expect(page).toMatch(/^<!doctype html>/);
    expect(page).not.toMatch(/<script/i);
    expect(page).not.toMatch(/<(img|iframe|link|image)\b/i);
    expect(page).not.toMatch(/<svg onload/i);
    expect(page).toContain('<meta http-equiv="Content-Security-Policy" content="default-src &#39;none&#39;;');
    expect(page).toContain('&lt;script&gt;window.__pwned=1&lt;/script&gt; &quot;quotes&quot; &amp; &lt;img src=&quot;');
    expect(page).toContain('&lt;script&gt;window.__pwned=6&lt;/script&gt;');
    expect(page).toContain('sess&quot;&gt;&lt;script&gt;window.__pwned=2&lt;/script&gt;');
    expect(page).toContain('All done &lt;script&gt;window.__pwned=8&lt;/script&gt;, api_key=[REDACTED]');
    expect(page).not.toContain('sk-live-abcdef123456');
    for (const id of Object.values(ids)) expect(page).toContain(id);
  });

  it('writes .vouch/report.html by default, and - writes to stdout', async () => {
    const rig = new Rig().write({ 'src/a.txt': 'good\n' });
    await rig.spec(SPEC);
    const written = await rig.run(['report']);
    expect(written.code).toBe(0);
    expect(written.stdout.trim()).toBe(rig.path('.vouch/report.html'));
    expect(rig.read('.vouch/.gitignore')).toContain('*');
    const piped = await rig.run(['report', '--out', '-']);
    expect(piped.stdout).toMatch(/^<!doctype html>/);
    expect(piped.stdout).toContain('No agent session and no dispatch recorded yet.');
  });
});

describe('vouch report in a real browser', () => {
  // .ci/run installs chromium, so in CI this always runs (and fails if it is missing); skipped, by name, only on a developer machine without it.
  it.skipIf(!hasChromium && !CI)(
    'renders the key content, runs nothing, requests nothing, and saves a screenshot',
    async ({ annotate }) => {
      expect(hasChromium, 'chromium is missing: .ci/run installs it (apt-get install chromium)').toBe(true);
      const { file, ids } = await build();
      const opened = await openFile(file);
      try {
        const { page, requests } = opened;
        // Nothing left the page and nothing ran.
        expect(requests).toEqual([`file://${file}`]);
        expect(leaks).toBe(0);
        expect(
          await page.evaluate(() => [document.scripts.length, document.images.length, document.querySelectorAll('iframe, link, svg image').length]),
        ).toEqual([0, 0, 0]);
        expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();

        const text = await page.locator('body').innerText();
        for (const heading of ['Summary', 'Verdicts over time', 'Checks', 'Sessions and dispatches', 'Task cards', 'Ledger integrity']) {
          await expect(page.getByRole('heading', { name: heading, exact: true }).count()).resolves.toBe(1);
        }
        // Hostile text shows as text.
        expect(text).toContain('<script>window.__pwned=1</script> "quotes" & <img src=');
        expect(text).toContain('</pre><script>window.__pwned=4</script>');
        expect(text).toContain(`session ${SESSION}`);
        expect(text).toContain('<script>window.__pwned=6</script>');
        // Checks: current status and history.
        expect(text).toMatch(/tests\s+PASS proves: src\/a.txt says <b>good<\/b> & "quoted"/);
        expect(await page.locator('#check-tests .strip i').count()).toBeGreaterThanOrEqual(3);
        // The session escaped; its subagent was contradicted; the never-reported dispatch and the altered one say so.
        expect(text).toContain('ESCAPED');
        // What the session claimed at each stop, set against the gate's answer: as text, redacted.
        const stops = await page.locator('table').filter({ hasText: 'the agent said' }).first().innerText();
        expect(stops).toMatch(/the agent said \(its claim\)/i);
        expect(stops).toContain('All done <script>window.__pwned=8</script>, api_key=[REDACTED]');
        expect(stops).not.toContain('sk-live-abcdef123456');
        expect(await page.locator(`#dispatch-${ids.subagent}`).innerText()).toMatch(/CONTRADICTED/);
        expect(await page.locator(`#dispatch-${ids.silent}`).innerText()).toMatch(
          /dispatched\s+ungraded[\s\S]*No report: the agent has not claimed anything yet/,
        );
        const altered = await page.locator(`#dispatch-${ids.damaged}`).innerText();
        expect(altered).toMatch(/DAMAGED[\s\S]*cannot be believed/);
        // Its altered event keeps its place in the trail, marked, and is not read.
        expect(altered).toMatch(/DAMAGED\s+seq \d+ \S+\s+event \S+ \(seq \d+\) no longer matches its hash[\s\S]*dispatched → reported/);
        // Claimed against verified, and the trail with its writers.
        const child = page.locator(`#dispatch-${ids.child}`);
        expect(await child.innerText()).toMatch(
          /CLAIMED \(THE AGENT'S OWN WORDS\)[\s\S]*believed[\s\S]*INDEPENDENTLY VERIFIED[\s\S]*verified[\s\S]*tests\s+PASS/i,
        );
        expect(await child.locator('table.trail tbody tr').count()).toBe(4);
        expect(await child.locator('table.trail').innerText()).toMatch(/reported → verified\s+pid \d+ \(cli, parent \d+/);
        // Dispatches sit under the run that ordered them, indented.
        expect(await page.evaluate((id) => document.getElementById(`dispatch-${id}`)!.parentElement!.closest('.dispatch')!.id, ids.child)).toBe(
          `dispatch-${ids.parent}`,
        );
        expect(await page.evaluate((id) => document.getElementById(`dispatch-${id}`)!.closest('.run')!.id, ids.subagent)).toBe(`session-${SESSION}`);
        const [outer, inner] = await Promise.all([page.locator(`#dispatch-${ids.parent}`).boundingBox(), child.boundingBox()]);
        expect(inner!.x).toBeGreaterThan(outer!.x + 10);
        // Cards with their decisions.
        expect(await page.locator(`#card-${ids.card}`).innerText()).toMatch(/rescope by coordinator \(cli\): narrower <script>window.__pwned=7<\/script>/);
        // The chart is drawn, and the stylesheet applies (no external asset needed).
        expect(await page.locator('#chart svg rect').count()).toBeGreaterThan(0);
        expect(
          await page
            .locator('.badge.b-fail')
            .first()
            .evaluate((el) => getComputedStyle(el).backgroundColor),
        ).toBe('rgb(255, 235, 233)');
        // The ledger's integrity: the forged receipt and the altered dispatch are findings.
        expect(await page.locator('#integrity').innerText()).toMatch(/body_altered[\s\S]*dispatch|dispatch[\s\S]*body_altered/);

        const shots = mkdtempSync(join(tmpdir(), 'vouch-report-screenshot-'));
        const shot = join(shots, 'report.png');
        await page.screenshot({ path: shot, fullPage: true });
        expect(readFileSync(shot).subarray(1, 4).toString()).toBe('PNG');
        await annotate(`screenshot of the report: ${shot}`);
        console.log(`report screenshot: ${shot}`);
      } finally {
        await opened.close();
      }
    },
    120_000,
  );
});
