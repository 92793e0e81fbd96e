import { fail } from '../../core/problem.js';
import type { StoredReceipt } from '../../receipt/receipt.js';
import { paint, type Paint } from '../../render/color.js';
import { statusWord } from '../../render/status.js';
import { duration } from '../../render/time.js';
import { oneLine } from '../../render/visible.js';
import type { Manifest } from '../../scope/manifest.js';
import { parse } from '../args.js';
import { EXIT } from '../exit.js';
import { json, out, type Cli } from '../io.js';

export const help = `usage: vouch show RECEIPT [--files] [--json]

One receipt in full: what ran, where, for how long, its exit code, the
hashes and redacted excerpts of its output, the files it covered, the
verdict and why. RECEIPT is an id or a unique prefix of one (6+ characters).

  --files  list every file of the manifest (path, sha256, size, group)
  --json   {"seq", "hash", "intact", "signature", "receipt": {...}, "manifest": {"files", "refused"}}
           (signature: the stored record {"alg", "keyid", "sig"} as JSON text, or null;
           \`vouch status\` and \`vouch audit\` check it)`;

export async function run(cli: Cli, args: readonly string[]): Promise<number> {
  const { values, positionals } = parse('show', args, { json: { type: 'boolean' }, files: { type: 'boolean' } });
  const [id, ...extra] = positionals;
  if (!id || extra.length > 0) {
    return fail({ code: 'usage', message: 'expected exactly one receipt id', where: 'vouch show', hint: '`vouch log` lists receipt ids' });
  }
  if (id.length < 6) {
    return fail({ code: 'usage', message: 'a receipt id prefix needs at least 6 characters', found: id, where: 'vouch show' });
  }
  const workspace = cli.session.workspace();
  const ledger = await cli.session.read(workspace);
  if (!ledger) return fail({ code: 'receipt_not_found', message: `no receipt "${id}": nothing has been recorded in this workspace yet`, hint: 'run `vouch verify`' });
  const found = await ledger.findReceipt(id);
  if (found.kind === 'none') return fail({ code: 'receipt_not_found', message: `no receipt "${id}" in this ledger`, hint: '`vouch log` lists receipt ids' });
  if (found.kind === 'ambiguous') {
    return fail({ code: 'receipt_ambiguous', message: `"${id}" matches several receipts: ${found.ids.join(', ')}`, hint: 'give more characters of the id' });
  }
  const receipt = found.receipt;
  const manifest = receipt.intact ? await ledger.getManifest(receipt.body.manifest_digest) : undefined;
  if (values.json) {
    json(cli, { seq: receipt.seq, hash: receipt.hash, intact: receipt.intact, signature: receipt.signature, receipt: receipt.body, manifest: manifest ?? null });
  } else {
    out(cli, renderReceipt(receipt, manifest, values.files === true, paint(cli.color)));
  }
  return EXIT.ok;
}

function signatureKeyid(stored: string): string {
  try {
    const keyid = (JSON.parse(stored) as { keyid?: unknown }).keyid;
    return typeof keyid === 'string' ? keyid.slice(0, 16) : '(unreadable)';
  } catch {
    return '(unreadable)';
  }
}

function renderReceipt(receipt: StoredReceipt, manifest: Manifest | undefined, files: boolean, p: Paint): string {
  const b = receipt.body;
  if (!receipt.intact) {
    return `${p.red('receipt')} ${b.id} (seq ${receipt.seq}) ${p.red('is damaged: its stored bytes no longer match its hash')}`;
  }
  const command = b.shell ? `sh -c ${JSON.stringify(b.argv[0])}` : b.argv.map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : JSON.stringify(a))).join(' ');
  const lines = [
    `${p.bold('receipt')}   ${b.id}  ${p.dim(`seq ${receipt.seq} · hash ${receipt.hash}`)}`,
    `${p.bold('check')}     ${oneLine(b.check_id)}  ${statusWord(b.verdict, p)} ${p.dim(`(${b.reason})`)}`,
    ...(b.detail ? [`${p.bold('detail')}    ${oneLine(b.detail)}`] : []),
    `${p.bold('proves')}    ${b.proves}`,
    `${p.bold('command')}   ${oneLine(command)}  ${p.dim(oneLine(`cwd ${b.cwd} · timeout ${b.timeout_s}s${b.executable ? ` · ${b.executable}` : ''}`))}`,
    `${p.bold('env')}       ${oneLine(b.env_names.join(' '))}`,
    b.ran
      ? `${p.bold('ran')}       ${b.started_at} for ${duration(b.duration_ms)} · exit ${b.exit_code ?? '-'}${b.signal ? ` · signal ${b.signal}` : ''}${b.timed_out ? ' · timed out' : ''}`
      : `${p.bold('ran')}       ${p.yellow('not started')}: stopped before the run`,
    `${p.bold('scope')}     ${b.file_count} files${manifest?.refused.length ? `, ${manifest.refused.length} refused` : ''} · manifest ${b.manifest_digest}`,
    `${p.bold('fingerprint')} ${b.fingerprint}`,
    `${p.bold('spec')}      sha256 ${b.spec_sha256} · definition ${b.definition_digest}`,
    `${p.bold('git')}       ${b.git ? `${b.git.head ?? '(no commits)'}${b.git.dirty ? ' (dirty)' : ''}` : 'not a git work tree'}`,
    `${p.bold('by')}        ${b.actor} · vouch ${b.engine.version} · ${b.platform.os} ${b.platform.arch} node ${b.platform.node}`,
    `${p.bold('chain')}     prev ${b.prev_hash ?? '(first entry)'}`,
    `${p.bold('signed')}    ${receipt.signature === null ? 'no' : `key id ${signatureKeyid(receipt.signature)} ${p.dim('(checked by `vouch status` and `vouch audit`)')}`}`,
  ];
  for (const [name, stream] of [['stdout', b.stdout], ['stderr', b.stderr]] as const) {
    if (!stream) continue;
    lines.push(`${p.bold(name)}    ${stream.bytes} bytes · sha256 ${stream.sha256}`);
    if (stream.excerpt.trim()) {
      lines.push(p.dim(`  ── ${stream.truncated ? 'end of ' : ''}${name}, redacted ──`));
      lines.push(...stream.excerpt.trimEnd().split('\n').map((line) => `  ${line}`));
    }
  }
  if (manifest && manifest.refused.length > 0) {
    lines.push(`${p.bold('refused')}   ${oneLine(manifest.refused.map(([path, why]) => `${path} (${why})`).join(', '))}`);
  }
  if (files && manifest) {
    lines.push(p.bold('files'));
    for (const [path, sha, size, group] of manifest.files) lines.push(`  ${sha.slice(0, 16)}  ${String(size).padStart(9)}  ${group.padEnd(8)}  ${oneLine(path)}`);
  }
  return lines.join('\n');
}
