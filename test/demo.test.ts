import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { collect } from './helpers/rig.js';

const DEMO = fileURLToPath(new URL('../scripts/demo.mjs', import.meta.url));

describe("the README's main job (`npm run demo`)", () => {
  it('shows a PASS, then STALE after an edit of a covered file, then FAIL once it is broken, and exits 0', async () => {
    // Only PATH and HOME cross, as from a person's fresh shell: no agent markers, no VOUCH_HOME of the caller.
    const child = spawn(process.execPath, [DEMO], { env: { PATH: process.env.PATH, HOME: process.env.HOME } });
    const result = await collect(child);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    const out = result.stdout;
    const pass = out.search(/^PASS {4}tests /m);
    const stale = out.search(/^ {2}STALE {2}tests /m);
    const fail = out.search(/^FAIL {4}tests /m);
    expect(pass).toBeGreaterThan(-1);
    expect(stale).toBeGreaterThan(pass);
    expect(fail).toBeGreaterThan(stale);
    expect(out).toContain('src/slug.js modified');
    expect(out).toContain('demo: done');
  }, 60_000);
});
