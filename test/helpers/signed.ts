import { expect } from 'vitest';
import type { Rig } from './rig.js';

export const SIGNED_SPEC = `version: 1
signing_key: default
checks:
  - {id: t, run: ["true"], sources: ["src/**"]}
  - {id: u, run: ["sh", "-c", "exit 0"], sources: ["src/**"]}
`;

/** A workspace whose receipts are signed by the key "default": keys generate, the spec, then `runs` verifies of `t`. */
export async function signedWorkspace(rig: Rig, runs: number, spec = SIGNED_SPEC): Promise<Rig> {
  rig.write({ 'src/a.ts': 'a' });
  const generated = await rig.run(['keys', 'generate']);
  expect(generated.code, generated.stderr).toBe(0);
  await rig.spec(spec);
  for (let i = 0; i < runs; i++) {
    const verified = await rig.run(['verify', 't']);
    expect(verified.code, verified.stderr).toBe(0);
  }
  return rig;
}

export async function audit(rig: Rig, ...args: string[]): Promise<{ code: number | null; report: any; stdout: string }> {
  const result = await rig.run(['audit', '--json', ...args]);
  return { code: result.code, report: result.json(), stdout: result.stdout };
}

/** The findings as "seq:code" strings, for exact comparison. */
export function findingCodes(report: { findings: { seq: number | null; code: string }[] }): string[] {
  return report.findings.map((f) => `${f.seq}:${f.code}`);
}
