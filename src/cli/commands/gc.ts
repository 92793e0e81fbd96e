import { fail } from '../../core/problem.js';
import { integerFlag, parse } from '../args.js';
import { EXIT } from '../exit.js';
import { json, out, type Cli } from '../io.js';
import { signingKeyFor } from '../../crypto/select.js';
import { signerFor } from '../../crypto/signature.js';
import { vouchHome } from '../../workspace/home.js';
import { ledgerOf, openLedgerForRead, specOf, workspaceOf } from '../session.js';

export const help = `usage: vouch gc [--keep-days N] [--keep-per-check N] [--json]

Removes old receipts. The latest receipt of every check is always kept, so no
status changes. The removal is itself recorded in the chain (how many, which
range, a digest of their hashes) so \`vouch audit\` can tell gc from tampering.
Manifests no receipt refers to any more are removed too. When the workspace
has a signing key (signing_key in vouch.yaml or VOUCH_SIGNING_KEY), the gc
record is signed like a receipt.

  --keep-days N       remove receipts older than N days
  --keep-per-check N  keep at most the N newest receipts of each check`;

export async function run(cli: Cli, args: readonly string[]): Promise<number> {
  const { values } = parse('gc', args, { json: { type: 'boolean' }, 'keep-days': { type: 'string' }, 'keep-per-check': { type: 'string' } }, false);
  const keepDays = integerFlag('gc', 'keep-days', values['keep-days'], 0);
  const keepPerCheck = integerFlag('gc', 'keep-per-check', values['keep-per-check'], 1);
  if (keepDays === undefined && keepPerCheck === undefined) {
    return fail({ code: 'usage', message: 'gc needs a policy: --keep-days N, --keep-per-check N, or both', where: 'vouch gc' });
  }
  const workspace = workspaceOf(cli);
  const spec = specOf(workspace, cli);
  const key = signingKeyFor(vouchHome(cli.io.env), cli.io.env, spec, workspace.root);
  if (!key.ok) return fail(key.error);
  const sign = key.value ? signerFor(key.value) : undefined;
  const ledger = openLedgerForRead(ledgerOf(cli.io.env, workspace, spec));
  const result = ledger
    ? await ledger
        .gc({ now: new Date(), ...(keepDays !== undefined && { keepDays }), ...(keepPerCheck !== undefined && { keepPerCheck }), ...(sign && { sign }) })
        .finally(() => ledger.close())
    : { removed: 0, manifestsRemoved: 0, gcEntryId: null };
  if (values.json) json(cli, { ok: true, ...result });
  else out(cli, result.removed === 0 ? 'nothing to remove' : `removed ${result.removed} receipt${result.removed === 1 ? '' : 's'} and ${result.manifestsRemoved} manifest${result.manifestsRemoved === 1 ? '' : 's'} (recorded as ${result.gcEntryId})`);
  return EXIT.ok;
}
