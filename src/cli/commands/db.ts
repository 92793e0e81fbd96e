import { fail } from '../../core/problem.js';
import { migrate, schemaState } from '../../ledger/postgres/migrate.js';
import { openPool, pgError } from '../../ledger/postgres/pool.js';
import { parse } from '../args.js';
import { EXIT } from '../exit.js';
import { json, out, type Cli } from '../io.js';
import { pgTarget } from '../pg-target.js';

export const help = `usage: vouch db migrate [--ledger URL] [--json]
       vouch db status  [--ledger URL] [--json]

The PostgreSQL ledger's schema. \`migrate\` creates the schema (default
"vouch", or ?schema=NAME in the URL) and applies every migration this vouch
knows that it lacks, in one transaction; running it again does nothing.
Every other command refuses a schema that is behind rather than changing a
shared database by itself. \`status\` prints the version found and the
version this vouch needs.

  --ledger URL  postgres://user@host:5432/db[?schema=NAME]; default
                VOUCH_LEDGER, else ledger: in vouch.yaml
  --json        {"ok", "ledger", "schema", "from", "to"} (migrate),
                {"ok", "ledger", "schema", "version", "latest"} (status)

exit: 0 done / up to date, 1 status found the schema behind, 2 usage or database problem`;

export async function run(cli: Cli, args: readonly string[]): Promise<number> {
  const { values, positionals } = parse('db', args, { ledger: { type: 'string' }, json: { type: 'boolean' } });
  const [action, ...extra] = positionals;
  if ((action !== 'migrate' && action !== 'status') || extra.length > 0) {
    return fail({ code: 'usage', message: 'expected `vouch db migrate` or `vouch db status`', where: 'vouch db', found: positionals.join(' ') });
  }
  const at = pgTarget(cli, values.ledger, `db ${action}`);
  const pool = await openPool(at, 1);
  try {
    if (action === 'migrate') {
      const { from, to } = await migrate(pool, at);
      if (values.json) json(cli, { ok: true, ledger: at.display, schema: at.schema, from, to });
      else
        out(
          cli,
          from === to
            ? `schema "${at.schema}" is up to date (version ${to})  ${at.display}`
            : `migrated schema "${at.schema}" from version ${from} to ${to}  ${at.display}`,
        );
      return EXIT.ok;
    }
    const state = await schemaState(pool, at);
    const ok = state.version === state.latest;
    if (values.json) json(cli, { ok, ledger: at.display, schema: at.schema, version: state.version, latest: state.latest });
    else out(cli, `schema "${at.schema}": version ${state.version}, this vouch needs ${state.latest}${ok ? '' : ' (run `vouch db migrate`)'}  ${at.display}`);
    return ok ? EXIT.ok : EXIT.notOk;
  } catch (error) {
    throw pgError(error, at);
  } finally {
    await pool.end();
  }
}
