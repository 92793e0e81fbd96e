import { join } from 'node:path';
import { fail } from '../../core/problem.js';
import { publicKeyPem } from '../../crypto/ed25519.js';
import { DEFAULT_KEY_NAME, findPublicKey, generateKey, keysDir, listKeys } from '../../crypto/keystore.js';
import { paint } from '../../render/color.js';
import { table } from '../../render/table.js';
import { findWorkspace } from '../../workspace/find.js';
import { vouchHome } from '../../workspace/home.js';
import { parse } from '../args.js';
import { EXIT } from '../exit.js';
import { json, out, type Cli } from '../io.js';
import { refuseInAgentRun } from '../person-only.js';

export const help = `usage: vouch keys generate [--name NAME] [--json]
       vouch keys list [--json]
       vouch keys export-public [NAME] [--format pem|hex]

Ed25519 key pairs that sign receipts, kept under VOUCH_HOME/keys (never in a
workspace): NAME.key (private, mode 0600) and NAME.pub (public). Every public
key there is trusted: a receipt signed by any other key never counts as PASS.

  generate        create a key pair (default name "${DEFAULT_KEY_NAME}"); never overwrites one.
                  Refused inside an agent run (exit 4, agent_run): a person's act
  list            the keys: name, key id, whether the private half is here
  export-public   print a public key for verifiers: PEM (default, what openssl
                  reads) or --format hex (the raw 32 bytes, what most libraries take).
                  NAME defaults to VOUCH_SIGNING_KEY, else "${DEFAULT_KEY_NAME}".

A workspace signs with the key named by VOUCH_SIGNING_KEY, else by
\`signing_key: NAME\` in vouch.yaml. The key id is the SHA-256 of the raw public key.`;

export async function run(cli: Cli, args: readonly string[]): Promise<number> {
  const [sub, ...rest] = args;
  switch (sub) {
    case 'generate':
      refuseInAgentRun(cli.io.env, 'vouch keys generate', 'keys');
      return generate(cli, rest);
    case 'list':
      return list(cli, rest);
    case 'export-public':
      return exportPublic(cli, rest);
    default:
      return fail({
        code: 'usage',
        message: sub === undefined ? 'keys needs a subcommand' : `unknown keys subcommand "${sub}"`,
        where: 'vouch keys',
        expected: 'generate, list or export-public',
        hint: 'run `vouch keys --help`',
      });
  }
}

function generate(cli: Cli, args: readonly string[]): number {
  const { values } = parse('keys generate', args, { name: { type: 'string' }, json: { type: 'boolean' } }, false);
  const home = vouchHome(cli.io.env);
  const workspace = findWorkspace(cli.dir ?? cli.io.cwd, cli.dir !== undefined);
  const created = generateKey(home, values.name ?? DEFAULT_KEY_NAME, workspace.ok ? workspace.value.root : undefined);
  if (!created.ok) return fail(created.error);
  const key = created.value;
  const privatePath = join(keysDir(home), `${key.name}.key`);
  if (values.json) {
    json(cli, { ok: true, name: key.name, keyid: key.publicKey.keyid, public_hex: key.publicKey.hex, private_path: privatePath, public_path: key.publicPath });
    return EXIT.ok;
  }
  const p = paint(cli.color);
  out(
    cli,
    [
      `created key "${key.name}" (ed25519, key id ${key.publicKey.keyid.slice(0, 16)})`,
      `  private  ${privatePath} ${p.dim('(mode 0600: keep it off every workspace and backup you share)')}`,
      `  public   ${key.publicPath}`,
      `  hex      ${key.publicKey.hex}`,
      `${p.cyan('next:')} add \`signing_key: ${key.name}\` to vouch.yaml and \`vouch allow\`, or set VOUCH_SIGNING_KEY=${key.name}`,
    ].join('\n'),
  );
  return EXIT.ok;
}

function list(cli: Cli, args: readonly string[]): number {
  const { values } = parse('keys list', args, { json: { type: 'boolean' } }, false);
  const home = vouchHome(cli.io.env);
  const keys = listKeys(home);
  if (values.json) {
    json(
      cli,
      keys.map((entry) =>
        entry.ok
          ? {
              name: entry.key.name,
              keyid: entry.key.publicKey.keyid,
              public_hex: entry.key.publicKey.hex,
              private: entry.key.hasPrivate,
              path: entry.key.publicPath,
            }
          : { name: entry.name, path: entry.path, error: entry.why },
      ),
    );
    return EXIT.ok;
  }
  if (keys.length === 0) {
    out(cli, `no keys in ${keysDir(home)}: create one with \`vouch keys generate\``);
    return EXIT.ok;
  }
  const p = paint(cli.color);
  out(
    cli,
    table(
      keys.map((entry) =>
        entry.ok
          ? [entry.key.name, entry.key.publicKey.keyid.slice(0, 16), entry.key.hasPrivate ? 'key pair' : p.dim('public only'), p.dim(entry.key.publicPath)]
          : [entry.name, p.red('unusable'), entry.why, p.dim(entry.path)],
      ),
    ),
  );
  return EXIT.ok;
}

function exportPublic(cli: Cli, args: readonly string[]): number {
  const { values, positionals } = parse('keys export-public', args, { format: { type: 'string' } });
  if (positionals.length > 1) return fail({ code: 'usage', message: 'expected at most one key name', where: 'vouch keys export-public' });
  const format = values.format ?? 'pem';
  if (format !== 'pem' && format !== 'hex') {
    return fail({ code: 'usage', message: '--format takes pem or hex', where: 'vouch keys export-public', expected: 'pem or hex', found: format });
  }
  const name = positionals[0] ?? (cli.io.env.VOUCH_SIGNING_KEY || DEFAULT_KEY_NAME);
  const found = findPublicKey(vouchHome(cli.io.env), name);
  if (!found.ok) return fail(found.error);
  out(cli, format === 'hex' ? found.value.publicKey.hex : publicKeyPem(found.value.publicKey));
  return EXIT.ok;
}
