import { auditLedger } from '../../audit/audit.js';
import { describeLocation } from '../../ledger/location.js';
import type { AuditReport } from '../../audit/finding.js';
import { fail } from '../../core/problem.js';
import { publicKeyArg } from '../../crypto/key-arg.js';
import { homeKeyring, keyringOf } from '../../crypto/keyring.js';
import { auditJson, renderAudit } from '../../render/audit.js';
import { paint } from '../../render/color.js';
import { vouchHome } from '../../workspace/home.js';
import { parse } from '../args.js';
import { EXIT } from '../exit.js';
import { json, out, type Cli } from '../io.js';
import { postgresLocation, type LedgerLocation } from '../../ledger/location.js';

export const help = `usage: vouch audit [--key PUB]... [--ledger URL] [--json]

Walks the whole ledger and reports, by entry, anything that is not as vouch
wrote it: an altered body, a broken or reordered hash chain, deleted entries
(gaps), a bad, missing or untrusted signature, pruned entries that do not
match their gc record. Exit 0 only when all is intact.

  --key PUB  trust only this public key (repeatable): 64 hex characters, a
             file holding one (PEM or hex), or a key name under VOUCH_HOME/keys.
             With --key, every entry must be signed by one of these keys.
             Without it, the public keys in VOUCH_HOME/keys are trusted and
             unsigned entries are findings only under require_signature: true
             (or after signed entries; trail entries are never signed).
  --ledger URL  audit the PostgreSQL ledger at URL (postgres://...?schema=NAME)
             without a workspace: a verifier service's chain, for one.
             Otherwise the workspace's ledger: VOUCH_LEDGER, else ledger: in
             vouch.yaml, else .vouch/ledger.db.
  --json     {"ok", "ledger", "entries", "receipts", "gc_records", "pruned",
             "signed_by", "unsigned", "require_signature", "head": {"seq",
             "hash"}, "findings": [{"seq", "id", "kind", "code", "detail"}]}

exit: 0 intact, 1 findings (or nothing recorded), 2 usage, spec or ledger problem`;

export async function run(cli: Cli, args: readonly string[]): Promise<number> {
  const { values } = parse('audit', args, { key: { type: 'string', multiple: true }, json: { type: 'boolean' }, ledger: { type: 'string' } }, false);
  // --ledger audits a PostgreSQL ledger by URL alone (a verifier service's chain has no workspace).
  const workspace = values.ledger === undefined ? cli.session.workspace() : undefined;
  const spec = workspace ? await cli.session.spec(workspace) : undefined;
  const home = vouchHome(cli.io.env);
  const given = (values.key ?? []).map((value) => {
    const key = publicKeyArg(value, home, cli.io.cwd, '--key');
    return key.ok ? key.value : fail(key.error);
  });
  const keyring = given.length > 0 ? keyringOf(given) : homeKeyring(home);
  const requireSignature = given.length > 0 || (spec?.requireSignature ?? false);
  const at = workspace && spec ? await cli.session.ledgerAt(workspace) : flagLedger(values.ledger ?? '');
  const path = describeLocation(at);
  const ledger = await cli.session.ledgerFor(at, false);
  const report: AuditReport = ledger
    ? await auditLedger(ledger, { keyring, requireSignature })
    : {
        entries: 0,
        receipts: 0,
        gcRecords: 0,
        pruned: 0,
        signedBy: {},
        unsigned: 0,
        head: null,
        findings: [{ seq: null, id: null, kind: 'ledger', code: 'ledger_empty', detail: 'no ledger: nothing has been recorded in this workspace' }],
      };
  if (values.json) json(cli, auditJson(report, path, requireSignature));
  else out(cli, renderAudit(report, path, paint(cli.color)));
  return report.findings.length === 0 ? EXIT.ok : EXIT.notOk;
}

function flagLedger(value: string): LedgerLocation {
  const at = postgresLocation(value, 'flag');
  return at.ok ? at.value : fail(at.error);
}
