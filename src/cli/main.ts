import { parseArgs } from 'node:util';
import { VouchProblem } from '../core/problem.js';
import { closest } from '../core/suggest.js';
import { LedgerError } from '../ledger/ledger.js';
import { colorEnabled, paint } from '../render/color.js';
import { problemJson, renderProblem } from '../render/problem.js';
import { VERSION } from '../version.js';
import { argsProblem } from './args.js';
import { commandIndex, optionIn } from './command-word.js';
import { EXIT, exitCodeFor } from './exit.js';
import { terminalIo, type Cli, type CliIo } from './io.js';
import { COMMANDS } from './registry.js';
import { ledgerProblem } from '../render/ledger-problem.js';

const USAGE = `vouch ${VERSION}: makes "done" a fact. Runs the checks an operator declared, fingerprints
the files they cover, and records a receipt: PASS, FAIL, UNKNOWN or STALE.

usage: vouch [-C DIR] [--no-color] <command> [options]

commands:
${Object.entries(COMMANDS)
  .map(([name, entry]) => `  ${name.padEnd(Math.max(...Object.keys(COMMANDS).map((n) => n.length)))} ${entry.summary}`)
  .join('\n')}

global options:
  -C, --dir DIR   use the workspace at DIR (default: nearest vouch.yaml upwards)
  --no-color      no colour (also NO_COLOR=1; colour is off when not a terminal)
  -h, --help      this help; \`vouch <command> --help\` for a command
  -V, --version   print the version

exit codes: 0 every selected blocking check PASS · 1 some FAIL, STALE or UNKNOWN
            2 usage, spec or ledger problem · 3 install/uninstall refused to edit a file
            4 refused by a task card's contract, or a dispatch transition its state does not allow
            5 pin drift: a dispatch's pinned vouch.yaml changed · 70 internal error (a bug)
environment: VOUCH_HOME (trust and keys; default $XDG_CONFIG_HOME/vouch or ~/.config/vouch)
             VOUCH_SIGNING_KEY (the key name receipts are signed with; overrides signing_key)
             VOUCH_LEDGER (postgres://... team ledger; overrides ledger:)
             VOUCH_TOKEN (the bearer token \`vouch verify --remote\` sends)
             VOUCH_ROLE (task cards: worker, verifier, coordinator or owner; see \`vouch card --help\`)`;

/** Runs one invocation; returns the exit code. Nothing here calls process.exit. */
export async function main(argv: readonly string[], world: CliIo): Promise<number> {
  const wantsJson = argv.includes('--json');
  // Everything below writes for people through the boundary; JSON goes to world.stdout, exact.
  const io = terminalIo(world);
  let p = paint(colorEnabled(io.stderrIsTTY, io.env, argv.includes('--no-color') ? false : undefined));
  try {
    const commandAt = commandIndex(argv);
    const globalArgs = commandAt < 0 ? argv : argv.slice(0, commandAt);
    const { values } = parseGlobal(globalArgs);
    if (values.version) {
      io.stdout.write(`${VERSION}\n`);
      return EXIT.ok;
    }
    if (commandAt < 0 || argv[commandAt] === 'help') {
      const topic = commandAt >= 0 ? argv[commandAt + 1] : undefined;
      if (topic && COMMANDS[topic]) {
        io.stdout.write(`${(await COMMANDS[topic].load()).help}\n`);
        return EXIT.ok;
      }
      (values.help || commandAt >= 0 ? io.stdout : io.stderr).write(`${USAGE}\n`);
      return values.help || commandAt >= 0 ? EXIT.ok : EXIT.usage;
    }
    const name = argv[commandAt]!;
    const entry = COMMANDS[name];
    if (!entry) {
      const guess = closest(name, Object.keys(COMMANDS));
      throw new VouchProblem({
        code: 'usage',
        message: `unknown command "${name}"${guess ? ` (did you mean "${guess}"?)` : ''}`,
        expected: `one of: ${Object.keys(COMMANDS).join(', ')}`,
        hint: 'run `vouch --help`',
      });
    }
    const rest = argv.slice(commandAt + 1);
    const command = await entry.load();
    if (rest.includes('--help') || rest.includes('-h')) {
      io.stdout.write(`${command.help}\n`);
      return EXIT.ok;
    }
    const dir = values.dir ?? optionIn(rest);
    const noColor = values['no-color'] === true || rest.includes('--no-color');
    // Loaded here, not at the top: --version and --help need none of it.
    const { Session } = await import('../session/session.js');
    const session = new Session({
      env: io.env,
      cwd: io.cwd,
      dir,
      ...(io.signal && { signal: io.signal }),
      ...(io.hashWorker && { hashWorker: io.hashWorker }),
    });
    const cli: Cli = { io, data: world.stdout, dir, color: colorEnabled(io.stdoutIsTTY, io.env, noColor ? false : undefined), session };
    p = paint(colorEnabled(io.stderrIsTTY, io.env, noColor ? false : undefined));
    try {
      return await command.run(cli, rest);
    } finally {
      // Every ledger the command opened is closed here, once.
      const trace = await session.close();
      if (trace) io.stderr.write(`${trace}\n`);
    }
  } catch (error) {
    const problem = error instanceof VouchProblem ? error.problem : error instanceof LedgerError ? ledgerProblem(error) : undefined;
    if (problem) {
      io.stderr.write(renderProblem(problem, p));
      if (wantsJson) world.stdout.write(`${JSON.stringify(problemJson(problem), null, 2)}\n`);
      return exitCodeFor(problem.code);
    }
    const report = `This is a bug in vouch ${VERSION} (node ${process.version}, ${process.platform}). Please report it with the command you ran and this message.`;
    io.stderr.write(`vouch: internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n${report}\n`);
    // --json promises one document on stdout, also when vouch itself is at fault.
    if (wantsJson) {
      const message = error instanceof Error ? error.message : String(error);
      world.stdout.write(`${JSON.stringify({ ok: false, error: { code: 'internal', message, hint: report } }, null, 2)}\n`);
    }
    return EXIT.internal;
  }
}

const GLOBAL_OPTIONS = {
  dir: { type: 'string', short: 'C' },
  'no-color': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'V' },
  json: { type: 'boolean' },
} as const;

function parseGlobal(args: readonly string[]) {
  try {
    return parseArgs({ args: [...args], options: GLOBAL_OPTIONS, strict: true, allowPositionals: false });
  } catch (error) {
    throw new VouchProblem(argsProblem(error, GLOBAL_OPTIONS, undefined, 'run `vouch --help`'));
  }
}
