import { describe, expect, it } from 'vitest';
import { Rig } from './helpers/rig.js';

const SPEC = `version: 1
checks:
  - id: unit
    run: ["true"]
    sources: ["a.txt"]
    tier: leaf
  - id: integration
    run: ["true"]
    sources: ["a.txt"]
    tier: lane
  - id: everywhere
    run: ["true"]
    sources: ["a.txt"]
  - id: advice
    run: ["true"]
    sources: ["a.txt"]
    block: false
`;

describe('vouch verify --tier T', () => {
  it('runs the blocking checks of that tier and the untiered ones, as the gate grades a stop at it', async () => {
    const rig = new Rig().write({ 'a.txt': 'a' });
    await rig.spec(SPEC);
    const lane = await rig.run(['verify', '--tier', 'lane', '--json']);
    expect(lane.code, lane.stderr).toBe(0);
    expect(lane.json().checks.map((c: { id: string }) => c.id)).toEqual(['integration', 'everywhere']);
    const leaf = await rig.run(['verify', '--tier', 'leaf', '--json']);
    expect(leaf.json().checks.map((c: { id: string }) => c.id)).toEqual(['unit', 'everywhere']);
  });

  it('refuses an unknown tier (saying which exist) and check ids beside --tier, with exit 2', async () => {
    const rig = new Rig().write({ 'a.txt': 'a' });
    await rig.spec(SPEC);
    const unknown = await rig.run(['verify', '--tier', 'captain']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown tier "captain"');
    expect(unknown.stderr).toContain('leaf, lane, coordinator, bridge');
    const both = await rig.run(['verify', 'unit', '--tier', 'leaf']);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('not both');
    expect((await rig.run(['log', '--json'])).json()).toEqual([]);
  });
});
