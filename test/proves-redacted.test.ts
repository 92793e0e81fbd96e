import { describe, expect, it } from 'vitest';
import { Rig } from './helpers/rig.js';

// One decision on `proves`: redacted when the spec is loaded, so every surface shows the same redacted text.
const TOKEN = 'ghp_abcdefghijklmnopqrstuvwxyz0123456789';

describe('proves is redacted everywhere it is shown', () => {
  it('a default proves that quotes a command carrying a token, and a written one with a token: verify, status, checks and the receipt show them redacted', async () => {
    const rig = new Rig().write({ 'src/a.txt': 'a' });
    await rig.spec(
      `version: 1\nchecks:\n  - {id: t, run: ["sh", "-c", "test -n '${TOKEN}'"], sources: ["src/**"]}\n  - {id: w, run: ["true"], sources: ["src/**"], proves: "deploys with token=${TOKEN}"}\n`,
    );
    // The answers about where things stand never carry the command: the token must not be there at all.
    for (const args of [['verify', '--json'], ['status', '--json'], ['status'], ['verify']]) {
      const output = await rig.run(args);
      expect(output.code, output.stderr).toBe(0);
      expect(output.stdout).not.toContain(TOKEN);
    }
    const proves = (rows: { id: string; proves: string }[]) => Object.fromEntries(rows.map((row) => [row.id, row.proves]));
    const expected = { t: "`sh -c test -n '[REDACTED]'` exited 0 on the declared scope.", w: 'deploys with token=[REDACTED]' };
    expect(proves((await rig.run(['checks', '--json'])).json().checks)).toEqual(expected);
    expect(proves((await rig.run(['status', '--json'])).json().checks)).toEqual(expected);
    // The receipt records the argv it ran (the hash binds it) and the redacted sentence.
    expect((await rig.run(['show', 'w', '--json'])).json().receipt.proves).toBe(expected.w);
  });
});
