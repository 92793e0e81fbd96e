import { describe, expect, it } from 'vitest';
import type { Sha256 } from '../core/digest.js';
import type { CheckDef } from '../spec/model.js';
import type { Pins } from './pins.js';
import { checkPinsDigest } from './pins-digest.js';

const check = (id: string, cwd = '.', run: readonly string[] = ['node', 'test.js']): CheckDef => ({
  id,
  run,
  shell: false,
  cwd,
  timeout: 60,
  env: [],
  sources: ['src/**'],
  tests: [],
  inputs: [],
  artifacts: [],
  exclude: [],
  hermetic: false,
  network: false,
  expect: { kind: 'exit', code: 0 },
  block: true,
  cache: true,
  tier: null,
  proves: 'x',
  allowMissing: false,
  definitionDigest: '0'.repeat(64) as Sha256,
});

const PINS: Pins = {
  path: '/usr/bin:/bin',
  executables: {
    t: { command: 'node', path: '/usr/bin/node', sha256: 'a'.repeat(64) as Sha256, identity: '1:2:3:4:5' },
    w: { command: 'node', path: '/usr/bin/node', sha256: 'a'.repeat(64) as Sha256, identity: '1:2:3:4:5' },
  },
  tool_configs: { '/ws/.npmrc': 'absent', '/ws/web/.npmrc': 'b'.repeat(64), '/home/u/.npmrc': 'absent' },
};

describe('checkPinsDigest: what one check ran under', () => {
  const base = checkPinsDigest(PINS, check('t'), '/ws');

  it('changes with the PATH, the program, its resolution and the tool configs the check reads', () => {
    expect(checkPinsDigest({ ...PINS, path: `/tmp/fake:${PINS.path}` }, check('t'), '/ws')).not.toBe(base);
    expect(
      checkPinsDigest({ ...PINS, executables: { ...PINS.executables, t: { ...PINS.executables.t!, sha256: 'c'.repeat(64) as Sha256 } } }, check('t'), '/ws'),
    ).not.toBe(base);
    expect(checkPinsDigest({ ...PINS, executables: { ...PINS.executables, t: { ...PINS.executables.t!, path: '/tmp/node' } } }, check('t'), '/ws')).not.toBe(
      base,
    );
    expect(checkPinsDigest({ ...PINS, tool_configs: { ...PINS.tool_configs, '/ws/.npmrc': 'd'.repeat(64) } }, check('t'), '/ws')).not.toBe(base);
    expect(checkPinsDigest({ ...PINS, tool_configs: { ...PINS.tool_configs, '/home/u/.npmrc': 'd'.repeat(64) } }, check('t'), '/ws')).not.toBe(base);
  });

  it('stays the same for a file identity allowed again over the same bytes, and for tool configs of another directory', () => {
    expect(checkPinsDigest({ ...PINS, executables: { ...PINS.executables, t: { ...PINS.executables.t!, identity: '9:9:9:9:9' } } }, check('t'), '/ws')).toBe(
      base,
    );
    expect(checkPinsDigest({ ...PINS, tool_configs: { ...PINS.tool_configs, '/ws/web/.npmrc': 'e'.repeat(64) } }, check('t'), '/ws')).toBe(base);
    // ...which a check that runs there does read.
    expect(checkPinsDigest({ ...PINS, tool_configs: { ...PINS.tool_configs, '/ws/web/.npmrc': 'e'.repeat(64) } }, check('w', 'web'), '/ws')).not.toBe(
      checkPinsDigest(PINS, check('w', 'web'), '/ws'),
    );
  });

  it("a check whose pin was taken for another command (a card's frozen check) has no program in its digest, consistently", () => {
    expect(checkPinsDigest(PINS, check('t', '.', ['python3', 'x.py']), '/ws')).toBe(
      checkPinsDigest({ ...PINS, executables: {} }, check('t', '.', ['python3', 'x.py']), '/ws'),
    );
  });

  it('a check with inputs changes with its input pin: another set of files matched, other bytes, or no pin of these globs', () => {
    const withInputs = { ...check('t'), inputs: ['package.json'] };
    const pin = { globs: ['package.json'], digest: 'f'.repeat(64) as Sha256, files: { 'package.json': 'f'.repeat(64) as Sha256 } };
    const pinned = checkPinsDigest({ ...PINS, inputs: { t: pin } }, withInputs, '/ws');
    expect(pinned).not.toBe(checkPinsDigest({ ...PINS, inputs: { t: { ...pin, digest: '1'.repeat(64) as Sha256 } } }, withInputs, '/ws'));
    expect(pinned).not.toBe(checkPinsDigest(PINS, withInputs, '/ws'));
    expect(pinned).not.toBe(checkPinsDigest({ ...PINS, inputs: { t: { ...pin, globs: ['other.json'] } } }, withInputs, '/ws'));
    // A check without inputs keeps the digest it had before inputs existed.
    expect(checkPinsDigest({ ...PINS, inputs: { t: pin } }, check('t'), '/ws')).toBe(base);
  });
});
