#!/usr/bin/env node
// The Claude Code plugin's entry: runs vouch from the plugin root, with the
// arguments it was given (`hook claude-code Stop`, `status`, `verify ID`).
// vouch must be built there (`npm ci` builds dist/). If it is not, a hook
// still answers in Claude Code's protocol: a Stop is blocked and a guarded
// tool call denied, because a gate that cannot run must not read as a pass.
const entry = new URL('../dist/cli.js', import.meta.url);
try {
  // The launcher is CommonJS: imported, it runs nothing until asked.
  (await import(entry.href)).default.launch();
} catch (error) {
  const [command, , event] = process.argv.slice(2);
  const why = `vouch is not runnable from the plugin at ${new URL('..', import.meta.url).pathname} (${error instanceof Error ? error.message.split('\n')[0] : String(error)}); run \`npm ci\` there to build it`;
  process.stderr.write(`vouch: ${why}\n`);
  if (command === 'hook' && (event === 'Stop' || event === 'SubagentStop')) {
    process.stdout.write(`${JSON.stringify({ decision: 'block', reason: `vouch blocked this stop: ${why}. A gate that cannot run is not a pass; tell a person.` })}\n`);
  } else if (command === 'hook' && event === 'PreToolUse') {
    process.stdout.write(`${JSON.stringify({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: `vouch could not check this call: ${why}` } })}\n`);
  } else if (command !== 'hook') {
    process.exitCode = 2;
  }
}
