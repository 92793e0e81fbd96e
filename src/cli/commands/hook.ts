import { fail } from '../../core/problem.js';
import { GATE_RUN_EVENT } from '../../gate/gate-run-event.js';
import type { HookContext } from '../../hooks/context.js';
import { gateContext } from '../../session/contexts.js';
import type { ClientProtocol } from '../../hooks/protocol.js';
import { hookedClient, hookedClients, type Client } from '../../clients/registry.js';
import { parse } from '../args.js';
import { readInput, type Cli } from '../io.js';

export const help = `usage: vouch hook claude-code [EVENT]
       vouch hook codex [EVENT]
       vouch hook hermes [EVENT]
       vouch hook git pre-push|pre-commit

Answers an agent client's hook: reads the hook's JSON on stdin and replies in
that client's protocol. EVENT is the client's name for it (Stop, SubagentStop,
PreToolUse, PostToolUse, SubagentStart); when omitted it is read from the
payload's hook_event_name. Installed by \`vouch install CLIENT\` (claude-code,
codex, hermes: Hermes's plugin sends its pre_verify as Stop, pre_tool_call as
PreToolUse, post_tool_call as PostToolUse).

  Stop, SubagentStop  the gate: the stop is allowed only when every blocking
                      check relevant to what the session changed is a fresh
                      PASS (see gate: in vouch.yaml). SubagentStop is also
                      the subagent's report (its last message) and grade on
                      its dispatch; Stop is held while a dispatch the session
                      ordered is half-closed
  SubagentStart       puts the subagent on the ledger as a dispatch
  PreToolUse          denies writes to vouch.yaml, .vouch/ and protect: globs;
                      with --exec (install claude-code --no-sandbox --exec),
                      rewrites every other shell call into
                      \`vouch exec -- /bin/sh -c CMD\`
  PostToolUse         records the agent's own (untrusted) trail in the ledger

A failure of vouch blocks a stop and denies a guarded call (fail closed), and
lets a PostToolUse or SubagentStart record go (fail open), saying why on stderr.

\`vouch hook git pre-push\` (installed by \`vouch install git-hooks\`) reads git's
ref lines on stdin and refuses a push while a blocking check is not a PASS
for the files of a commit being pushed (its own files, not the work tree's:
a receipt of exactly those files, or the work tree's when they are the same;
else UNKNOWN work_tree_differs). A ref being deleted is let through. With
nothing on stdin it judges the work tree. \`vouch hook git pre-commit\`
(\`install git-hooks --pre-commit\`) judges the staged files the same way.`;

/** Who may call: every client with hooks in the registry, and git. */
const CALLERS = [...hookedClients().map((client) => client.id), 'git'];

export async function run(cli: Cli, args: readonly string[]): Promise<number> {
  const { values, positionals } = parse('hook', args, { exec: { type: 'boolean' } });
  const [client, event, ...extra] = positionals;
  if (!client || !CALLERS.includes(client) || extra.length > 0) {
    return fail({
      code: 'usage',
      message: client ? `unknown hook client "${client}"${extra.length > 0 ? ' or too many arguments' : ''}` : 'which client is calling?',
      where: 'vouch hook',
      expected: `one of: ${CALLERS.join(', ')}, then optionally the event name`,
      ...(client && { found: positionals.join(' ') }),
      hint: 'run `vouch hook --help`',
    });
  }
  if (client === 'git') {
    const { gitHook } = await import('./hook-git.js');
    return gitHook(cli, event);
  }
  if (event === GATE_RUN_EVENT) {
    // A runner the gate started for checks its budget would cut short (gate/background.ts): never a client's call.
    const { runBackgroundOrder } = await import('../../gate/background-runner.js');
    const end = await runBackgroundOrder(gateContext(cli.session), await readInput(cli.io));
    cli.io.stderr.write(`vouch: background run: ${end}\n`);
    return end === 'ran' ? 0 : 1;
  }
  const { runHook } = await import('../../hooks/handle.js');
  const protocol: ClientProtocol = { client: client as Client, ...hookedClient(client)!.hooks.protocol };
  const stdin = await readInput(cli.io);
  // The guard never opens a ledger: the session loads the SQLite binding only when a ledger is first asked for.
  const reply = await runHook(protocol, event, stdin, { ...hookContext(cli), ...(values.exec === true && { exec: true }) });
  // The client's protocol, byte for byte: the text a person sees inside it is made visible by the renderers.
  cli.data.write(reply.stdout);
  cli.io.stderr.write(reply.stderr);
  return reply.exitCode;
}

function hookContext(cli: Cli): HookContext {
  const self = cli.io.self;
  return {
    ...gateContext(cli.session),
    // The gate's background runner is this very vouch (node + entry script), never one found on PATH.
    ...(self && { background: { argv: [self.node, self.entry], env: cli.io.env } }),
    self: { argv: cli.io.self ? [cli.io.self.node, cli.io.self.entry] : ['vouch'] },
    fallbackCwd: cli.io.env.CLAUDE_PROJECT_DIR ?? cli.dir ?? cli.io.cwd,
  };
}
