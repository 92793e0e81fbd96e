import { resolve } from 'node:path';
import { selectChecks } from '../../spec/select.js';
import { fail } from '../../core/problem.js';
import { loadSigningKey } from '../../crypto/keystore.js';
import { selectedKey } from '../../crypto/select.js';
import { writeBundle } from '../../export/bundle-file.js';
import { exportReceipts } from '../../export/export.js';
import type { Ledger } from '../../ledger/ledger.js';
import type { StoredReceipt } from '../../receipt/receipt.js';
import type { Spec } from '../../spec/model.js';
import { vouchHome } from '../../workspace/home.js';
import { parse, timeFlag } from '../args.js';
import { EXIT } from '../exit.js';
import { err, json, type Cli } from '../io.js';

export const help = `usage: vouch export [RECEIPT...] [--check ID]... [--since T] [--format intoto] [--out FILE] [--signing-key NAME] [--json]

Writes receipts as an in-toto bundle (.intoto.jsonl): one DSSE envelope per
line, payloadType application/vnd.in-toto+json, signed (Ed25519 over the DSSE
PAE) with the workspace's signing key. Each payload is an in-toto Statement v1
in canonical JSON: the link v0.3 predicate when the run recorded artifacts
(subjects = artifacts, materials = sources and tests, byproducts = exit code
as return-value, verdict, the receipt's hash and prev_hash), else the
test-result v0.1 predicate (subjects = the files it covered).

Which receipts (default: the latest receipt of every check in vouch.yaml; a
check that never ran is refused rather than left out):
  RECEIPT...          these receipts (full id, short form, or a unique leading or trailing part of 6+ characters)
  --check ID          the latest receipt of this check (repeatable); with
                      --since, every receipt of it since then
  --since T           receipts finished at or after T: an ISO date or
                      date-time, or a duration back from now (90m, 24h, 7d)

  --format intoto     the only format (default)
  --out FILE          write the bundle here (whole or not at all); default stdout
  --signing-key NAME  sign with this key instead of the workspace's
                      (VOUCH_SIGNING_KEY, else signing_key in vouch.yaml)
  --json              with --out: {"ok", "out", "keyid", "receipts": [ids]} on stdout

Only intact receipts whose ledger signature was made by the same key are
exported; anything else is refused with the reason (exit 2).`;

export async function run(cli: Cli, args: readonly string[]): Promise<number> {
  const { values, positionals } = parse('export', args, {
    check: { type: 'string', multiple: true },
    since: { type: 'string' },
    format: { type: 'string' },
    out: { type: 'string' },
    'signing-key': { type: 'string' },
    json: { type: 'boolean' },
  });
  if ((values.format ?? 'intoto') !== 'intoto') {
    return fail({
      code: 'usage',
      message: `unknown export format "${values.format}"`,
      where: 'vouch export --format',
      expected: 'intoto',
      found: values.format,
    });
  }
  const since = timeFlag('export', 'since', values.since, new Date());
  if (values.json && values.out === undefined) {
    return fail({ code: 'usage', message: '--json needs --out FILE: without it the bundle itself is what goes to stdout', where: 'vouch export' });
  }
  const checkIds = values.check ?? [];
  if (positionals.length > 0 && (checkIds.length > 0 || since !== undefined)) {
    return fail({ code: 'usage', message: 'name receipts, or select them with --check/--since, not both', where: 'vouch export' });
  }
  const workspace = cli.session.workspace();
  const spec = await cli.session.spec(workspace);
  const home = vouchHome(cli.io.env);
  const keyName = values['signing-key'] ?? selectedKey(cli.io.env, spec)?.name;
  if (keyName === undefined) {
    return fail({
      code: 'signing_key_required',
      message: 'export signs every envelope, and no signing key is selected',
      where: spec.path,
      expected: '--signing-key NAME, VOUCH_SIGNING_KEY=NAME, or signing_key: NAME in vouch.yaml',
      hint: 'receipts must also have been signed by that key when they were recorded',
    });
  }
  const key = loadSigningKey(home, keyName, workspace.root);
  if (!key.ok) return fail(key.error);

  const ledger = await cli.session.read(workspace);
  if (!ledger) return fail({ code: 'export_refused', message: 'nothing to export: nothing has been recorded in this workspace', hint: 'run `vouch verify`' });
  const receipts: StoredReceipt[] = await selectReceipts(ledger, spec, positionals, checkIds, since);
  if (receipts.length === 0) return fail({ code: 'export_refused', message: 'no receipt matches the selection', hint: '`vouch log` lists receipts' });
  const result = await exportReceipts(ledger, receipts, key.value);
  if (!result.ok) {
    return fail({
      code: 'export_refused',
      message: `${result.refusals.length} of ${receipts.length} receipts cannot be exported under key "${key.value.name}": ${result.refusals
        .slice(0, 5)
        .map((r) => `${r.id} (${r.why})`)
        .join('; ')}${result.refusals.length > 5 ? '; ...' : ''}`,
      hint: 'a receipt is exported only if it was signed by this key when it was recorded: select the key, then `vouch verify` again',
    });
  }
  const text = result.envelopes.map((envelope) => JSON.stringify(envelope)).join('\n') + '\n';
  if (values.out === undefined) {
    cli.data.write(text);
  } else {
    const path = resolve(cli.io.cwd, values.out);
    const written = writeBundle(path, text);
    if (!written.ok) return fail(written.error);
    if (values.json) json(cli, { ok: true, out: path, keyid: key.value.publicKey.keyid, receipts: receipts.map((r) => r.body.id) });
    else
      err(
        cli,
        `exported ${result.envelopes.length} receipt${result.envelopes.length === 1 ? '' : 's'} to ${path}, signed by "${key.value.name}" (key id ${key.value.publicKey.keyid.slice(0, 16)})`,
      );
  }
  return EXIT.ok;
}

async function selectReceipts(
  ledger: Ledger,
  spec: Spec,
  ids: readonly string[],
  checkIds: readonly string[],
  since: Date | undefined,
): Promise<StoredReceipt[]> {
  const chosen: StoredReceipt[] = [];
  if (ids.length > 0) {
    for (const id of ids) {
      if (id.length < 6) fail({ code: 'usage', message: 'a receipt id prefix needs at least 6 characters', found: id, where: 'vouch export' });
      const found = await ledger.findReceipt(id);
      if (found.kind === 'none') fail({ code: 'receipt_not_found', message: `no receipt "${id}" in this ledger`, hint: '`vouch log` lists receipt ids' });
      if (found.kind === 'ambiguous')
        fail({
          code: 'receipt_ambiguous',
          message: `"${id}" matches several receipts: ${found.ids.join(', ')}`,
          hint: 'give the full id, or more characters of it',
        });
      if (found.kind === 'found') chosen.push(found.receipt);
    }
  } else if (since !== undefined) {
    const checks = checkIds.length > 0 ? selectChecks(spec, checkIds).map((c) => c.id) : [undefined];
    for (const checkId of checks) {
      chosen.push(...(await ledger.listReceipts({ limit: Number.MAX_SAFE_INTEGER, since, ...(checkId !== undefined && { checkId }) })));
    }
  } else {
    const checks = selectChecks(spec, checkIds).map((c) => c.id);
    const latest = await ledger.latestReceipts(checks);
    // A bundle silently missing a check would read as if that check were not required.
    const never = checks.filter((id) => !latest.has(id));
    if (never.length > 0) {
      fail({
        code: 'export_refused',
        message: `no receipt to export for ${never.map((id) => `"${id}"`).join(', ')}: ${never.length === 1 ? 'it has' : 'they have'} never run here`,
        hint: `run \`vouch verify ${never.join(' ')}\`, or name the checks to export with --check`,
      });
    }
    chosen.push(...latest.values());
  }
  const unique = new Map(chosen.map((receipt) => [receipt.body.id, receipt]));
  return [...unique.values()].sort((a, b) => a.seq - b.seq);
}
