import { mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ProtectedPaths } from '../guard/protected.js';
import { execPolicy } from '../spec/normalize.js';
import { precheck } from './precheck.js';

const root = realpathSync(mkdtempSync(join(tmpdir(), 'vouch-precheck-')));
const place = { root, cwd: root, home: '/nonexistent', protect: new ProtectedPaths(['test/**']), wiring: { config: () => [], gitHook: () => [] } };
const check = (argv: string[], exec: Parameters<typeof execPolicy>[0] = {}) => precheck(argv, execPolicy(exec), place, '/usr/bin:/bin');

describe('precheck: what the line shows before it runs', () => {
  it.each([
    [['curl', '-s', 'https://example.com/a'], 'example.com'],
    [['wget', 'http://user@10.0.0.1:8080/x'], '10.0.0.1'],
    [['ssh', 'git@github.com'], 'github.com'],
    [['scp', 'f', 'deploy@host.example.org:/tmp/'], 'host.example.org'],
    [['git', 'clone', 'https://github.com/a/b'], 'github.com'],
    [['sh', '-c', 'cd src && curl example.net'], 'example.net'],
    [['env', 'A=1', 'timeout', '5', 'nc', 'evil.example', '80'], 'evil.example'],
  ])('network program %j under network: false names %s', (argv, host) => {
    expect(check(argv)).toContainEqual(expect.objectContaining({ reason: 'network_off', host }));
  });

  it('says nothing of a network program when the network is on, nor of git status', () => {
    expect(check(['curl', 'https://example.com'], { network: true })).toEqual([]);
    expect(check(['git', 'status'])).toEqual([]);
    expect(check(['echo', 'curl https://example.com'])).toEqual([]);
  });

  it('finds a denied program by name inside sh -c and behind wrappers', () => {
    expect(check(['sh', '-c', 'true && nohup wget x'], { deny: ['wget'], network: true })).toContainEqual({
      reason: 'denied_program',
      program: 'wget',
      named: 'wget',
    });
    expect(check(['/usr/bin/wget', 'x'], { deny: ['wget'], network: true })).toContainEqual(
      expect.objectContaining({ reason: 'denied_program', program: 'wget' }),
    );
  });

  it('finds writes to what vouches as the guard reads them: the spec, the ledger, protect: globs', () => {
    expect(check(['sh', '-c', 'echo x > vouch.yaml'])).toContainEqual({ reason: 'writes_vouching', path: 'vouch.yaml', via: '> redirection' });
    expect(check(['rm', '-rf', '.vouch'])).toContainEqual(expect.objectContaining({ reason: 'writes_vouching', path: '.vouch' }));
    expect(check(['cp', 'x', 'test/a.test.ts'])).toContainEqual(expect.objectContaining({ reason: 'writes_vouching', path: 'test/a.test.ts' }));
    expect(check(['sh', '-c', 'echo x > src/a.ts'])).toEqual([]);
  });

  it("finds a person's act", () => {
    expect(check(['vouch', 'allow'])).toContainEqual(expect.objectContaining({ reason: 'person_act' }));
  });
});
