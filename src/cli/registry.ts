import type { Cli } from './io.js';

/** A command module: loaded only when its command runs. */
export interface CommandModule {
  readonly help: string;
  run(cli: Cli, args: readonly string[]): Promise<number>;
}

export interface CommandEntry {
  readonly summary: string;
  readonly load: () => Promise<CommandModule>;
}

/** Every command, in the order `vouch --help` lists them. */
export const COMMANDS: Readonly<Record<string, CommandEntry>> = {
  init: { summary: 'print a starter vouch.yaml for this project (--write to create and allow it)', load: () => import('./commands/init.js') },
  allow: { summary: 'trust this exact vouch.yaml for this workspace', load: () => import('./commands/allow.js') },
  deny: { summary: 'withdraw trust from this workspace', load: () => import('./commands/deny.js') },
  checks: { summary: 'list the configured checks, validated', load: () => import('./commands/checks.js') },
  verify: { summary: 'run checks and record a receipt for each', load: () => import('./commands/verify.js') },
  status: { summary: "each check's current status against the files as they are now", load: () => import('./commands/status.js') },
  show: { summary: 'one receipt in full', load: () => import('./commands/show.js') },
  log: { summary: 'receipts, newest first', load: () => import('./commands/log.js') },
  gc: { summary: 'remove old receipts (never the latest of a check)', load: () => import('./commands/gc.js') },
  keys: { summary: 'create, list and export the Ed25519 keys that sign receipts', load: () => import('./commands/keys.js') },
  audit: { summary: 'walk the whole ledger: links, hashes, signatures, gaps, gc records', load: () => import('./commands/audit.js') },
  export: { summary: 'write receipts as signed in-toto attestations (DSSE, .intoto.jsonl)', load: () => import('./commands/export.js') },
  'verify-receipt': { summary: 'check an exported bundle offline with a public key', load: () => import('./commands/verify-receipt.js') },
  'verify-release': {
    summary: 'check a release tarball (and an installed copy) against its SHA-256 manifest',
    load: () => import('./commands/verify-release.js'),
  },
  schema: { summary: 'print the JSON Schema of vouch.yaml (--report: of vouch report --format json)', load: () => import('./commands/schema.js') },
  mcp: { summary: 'serve status and verification to agents over MCP (stdio)', load: () => import('./commands/mcp.js') },
  card: { summary: 'task cards: a proof frozen at open, closing refused without a fresh PASS (see --help)', load: () => import('./commands/card.js') },
  db: { summary: 'create or upgrade the schema of a PostgreSQL ledger (db migrate, db status)', load: () => import('./commands/db.js') },
  serve: { summary: 'the verifier service: HTTP API, tokens, its own trust list (needs PostgreSQL)', load: () => import('./commands/serve.js') },
  worker: { summary: 'run jobs for the verifier service, signed with its key (scale out: any number)', load: () => import('./commands/worker.js') },
  sessions: { summary: 'agent sessions the gate has seen: allowed, blocked or ESCAPED', load: () => import('./commands/sessions.js') },
  dispatch: {
    summary: 'record an agent sent to work: new, report (its claim), grade (the checker), close, show',
    load: () => import('./commands/dispatch.js'),
  },
  fleet: { summary: 'the dispatch board: every dispatch, its state, tier and verdict', load: () => import('./commands/fleet.js') },
  report: {
    summary: 'write the report (HTML, JSON or Markdown, one model): checks, sessions, dispatches and drift, cards, integrity',
    load: () => import('./commands/report.js'),
  },
  doctor: {
    summary: 'what is wired here and whether it holds: clients, MCP, the box, trust and pins, keys, the ledger, the sandbox',
    load: () => import('./commands/doctor.js'),
  },
  exec: {
    summary: 'run one command in the per-command sandbox of exec: in vouch.yaml, and record a signed exec receipt',
    load: () => import('./commands/exec.js'),
  },
  install: { summary: 'wire vouch into Claude Code, Codex, git hooks or an MCP client (safely; see --help)', load: () => import('./commands/install.js') },
  uninstall: { summary: 'take back what install did, restoring the original bytes', load: () => import('./commands/uninstall.js') },
  hook: { summary: "answer an agent client's hook (the gate, the guard, the trail)", load: () => import('./commands/hook.js') },
};
