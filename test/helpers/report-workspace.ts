import { expect } from 'vitest';
import { withLedgerDb } from './ledger-db.js';
import { Rig } from './rig.js';

export const REPORT_SPEC = `version: 1
gate: {max_blocks: 1}
checks:
  - id: tests
    run: ["sh", "-c", "grep -q good src/a.txt || { echo '<script>window.__pwned=3</script> src/a.txt is not good' >&2; exit 1; }"]
    sources: ["src/**"]
    proves: 'src/a.txt says <b>good</b> & "quoted"'
  - id: lint
    run: ["true"]
    sources: ["src/**"]
    block: false
`;

/** The session id the hooks are given: hostile too. */
export const REPORT_SESSION = 'sess"><script>window.__pwned=2</script>';

/** The ids of what a report workspace holds, by role. */
export type ReportIds = Record<'parent' | 'child' | 'silent' | 'damaged' | 'subagent' | 'card', string>;

/**
 * A workspace with something of everything a report shows, and hostile
 * words wherever an agent or a hook payload can put them: a check with
 * PASS, FAIL, PASS history; dispatches from the command line (a parent and
 * the child it ordered, verified and closed; one that never reported; one
 * whose record is altered); a Claude Code session whose subagent is
 * contradicted and which escapes; a task card with a decision; a forged
 * receipt. `leakUrl` is named in the hostile markup: a page that fetched
 * anything would hit it.
 */
export async function reportWorkspace(leakUrl: string): Promise<{ readonly rig: Rig; readonly ids: ReportIds }> {
  const rig = new Rig().write({ 'src/a.txt': 'good\n' });
  await rig.spec(REPORT_SPEC);
  const run = async (args: string[], stdin?: string) => {
    const result = await rig.run(args, stdin === undefined ? {} : { stdin });
    return result;
  };
  const id = async (args: string[]) => (await run(['dispatch', 'new', '--json', ...args])).json().id as string;
  const hook = (event: string, payload: Record<string, unknown>) =>
    run(['hook', 'claude-code', event], JSON.stringify({ session_id: REPORT_SESSION, cwd: rig.root, hook_event_name: event, ...payload }));

  // Check history: PASS, FAIL, PASS.
  await run(['verify']);
  rig.write({ 'src/a.txt': 'bad\n' });
  await run(['verify']);
  rig.write({ 'src/a.txt': 'good\n' });
  await run(['verify']);

  // Dispatches from the command line: a parent, a child it ordered, one that never reported, one whose record is altered.
  const parent = await id(['--prompt', `<script>window.__pwned=1</script> "quotes" & <img src="${leakUrl}/prompt">`]);
  const child = await id(['--prompt', 'child task', '--parent', parent]);
  rig.write({
    'claim.json': JSON.stringify({
      summary: `</pre><script>window.__pwned=4</script><link rel="stylesheet" href="${leakUrl}/claim.css">`,
      deliverables: [{ what: '<b>bold</b>', evidence: 'believed', how: `"><svg onload="window.__pwned=5"><image href="${leakUrl}/svg"/></svg>` }],
    }),
  });
  await run(['dispatch', 'report', child, '--report', 'claim.json']);
  await run(['dispatch', 'grade', child]);
  await run(['dispatch', 'close', child, '--reason', `closed <iframe src="${leakUrl}/frame"></iframe>`]);
  const silent = await id(['--prompt', 'went quiet']);
  const damaged = await id(['--prompt', 'will be altered']);
  await run(['dispatch', 'report', damaged, '--report', 'claim.json']);
  withLedgerDb(rig, (db) =>
    db.prepare("UPDATE chain SET body = replace(body, 'will be altered', 'was altered') WHERE kind = 'dispatch' AND subject = ?").run(damaged),
  );

  // An agent session: a subagent breaks the file and is contradicted; the session stops on it twice and escapes.
  await hook('SubagentStart', { agent_id: 'agent<1>', agent_type: 'general-purpose' });
  rig.write({ 'src/a.txt': 'bad\n' });
  await hook('PostToolUse', {
    agent_id: 'agent<1>',
    tool_name: 'Write',
    tool_input: { file_path: rig.path('src/a.txt'), content: 'bad\n' },
    tool_response: {},
  });
  await hook('SubagentStop', { agent_id: 'agent<1>', agent_type: 'general-purpose', last_assistant_message: 'Done <b>really</b>.' });
  await hook('Stop', { last_assistant_message: 'All done <script>window.__pwned=8</script>, api_key=sk-live-abcdef123456.' });
  await hook('Stop', { last_assistant_message: 'All done.', stop_hook_active: true });
  const subagent = (await run(['fleet', '--json'])).json().dispatches.find((d: any) => d.agent?.id === 'agent<1>').id as string;

  // A task card with a decision whose words are hostile.
  const cardOpened = await rig.run(
    ['card', 'open', '--goal', 'make <a> good', '--artifact', 'src/a.txt', '--done-when', 'src/a.txt says good', '--proof', 'tests', '--json'],
    { env: { VOUCH_ROLE: 'owner' } },
  );
  expect(cardOpened.code, cardOpened.stderr).toBe(0);
  const card = cardOpened.json().id as string;
  const decided = await rig.run(
    ['card', 'decide', card, 'rescope', '--why', 'narrower <script>window.__pwned=7</script>', '--goal', 'make a good, only', '--json'],
    { env: { VOUCH_ROLE: 'coordinator' } },
  );
  expect(decided.code, decided.stderr).toBe(0);

  // A forged receipt whose check id no spec would accept: it must read as damaged, and as text.
  withLedgerDb(rig, (db) =>
    db
      .prepare("INSERT INTO chain (id, kind, check_id, manifest, created_at, hash, body, signature) VALUES (?, 'receipt', ?, NULL, ?, ?, ?, NULL)")
      .run(
        '01m8forgedreceipt000000000',
        '<script>window.__pwned=6</script>',
        Date.now(),
        '0'.repeat(64),
        JSON.stringify({ id: '01m8forgedreceipt000000000', check_id: '<script>window.__pwned=6</script>', verdict: 'PASS' }),
      ),
  );

  return { rig, ids: { parent, child, silent, damaged, subagent, card } };
}
