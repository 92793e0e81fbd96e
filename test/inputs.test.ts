import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { Rig } from './helpers/rig.js';

/*
 * Issue 22: what is not in the proof cannot decide the verdict. `inputs:`
 * names the files that decide what a check's command does (its manifest,
 * lockfile, configs); they are fingerprinted as their own group, in every
 * receipt's manifest.
 */

const sha = (text: string) => createHash('sha256').update(text).digest('hex');

describe('inputs: the spec field, the scan and the fingerprint', () => {
  it('`vouch checks --files` lists the input group (a glob that matches nothing is no warning); the receipt\'s manifest holds every input\'s hash, a credential-shaped one\'s too, never its text', async () => {
    const npmrc = 'script-shell=/bin/sh\n//registry.npmjs.org/:_authToken=npm_notarealtoken0123456789\n';
    const rig = new Rig().write({ 'src/a.js': 'a\n', 'package.json': '{"name":"p"}\n', '.npmrc': npmrc });
    await rig.spec('version: 1\nchecks:\n  - {id: t, run: ["true"], sources: ["src/**"], inputs: ["package.json", ".npmrc", "pytest.ini"]}\n');
    const checks = await rig.run(['checks', '--files', '--json']);
    expect(checks.code).toBe(0);
    const [check] = checks.json().checks;
    expect(check.inputs).toEqual(['package.json', '.npmrc', 'pytest.ini']);
    expect(check.warnings).toEqual([]);
    expect(check.files).toEqual([
      { path: '.npmrc', group: 'input' },
      { path: 'package.json', group: 'input' },
      { path: 'src/a.js', group: 'source' },
    ]);
    expect(check.refused).toEqual([]);
    const text = await rig.run(['checks', '--files']);
    expect(text.stdout).toContain('inputs package.json .npmrc pytest.ini');
    expect(text.stdout).toMatch(/files \(3: 2 input, 1 source\)/);

    expect((await rig.run(['verify'])).code).toBe(0);
    const shown = (await rig.run(['show', 't', '--files', '--json'])).json();
    expect(shown.manifest.files).toContainEqual(['.npmrc', sha(npmrc), npmrc.length, 'input']);
    expect(shown.manifest.files).toContainEqual(['package.json', sha('{"name":"p"}\n'), 13, 'input']);
    const log = await rig.run(['log', '--json']);
    expect(JSON.stringify(shown) + log.stdout).not.toContain('npm_notarealtoken');
  });

  it('a stray `sources: ["**"]` still refuses a credential-shaped file, as before', async () => {
    const rig = new Rig().write({ 'src/a.js': 'a\n', '.npmrc': 'x=1\n' });
    await rig.spec('version: 1\nchecks:\n  - {id: t, run: ["true"], sources: ["**"]}\n');
    const [check] = (await rig.run(['checks', '--files', '--json'])).json().checks;
    expect(check.refused).toEqual([{ path: '.npmrc', why: 'credential' }]);
    expect(check.files.map((f: { path: string }) => f.path)).not.toContain('.npmrc');
  });
});
