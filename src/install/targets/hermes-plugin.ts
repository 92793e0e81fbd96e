import { join, resolve } from 'node:path';
import { STOP_TIMEOUT_SECONDS, TOOL_TIMEOUT_SECONDS, type HermesPluginInstall } from '../../clients/descriptor.js';
import type { EditIntent } from '../intent.js';
import type { SelfCommand } from './agent-hooks.js';

/** The plugin's name: its folder under plugins/, its key in `plugins.enabled`. */
export const HERMES_PLUGIN = 'vouch';

/**
 * Hermes calls `pre_verify` at most `agent.max_verify_nudges` times in a
 * turn (default 3), then lets the turn end without asking. Above the
 * largest `gate.max_blocks` (100), so vouch's own bound decides and an
 * escape is recorded as one.
 */
export const HERMES_MAX_VERIFY_NUDGES = 101;

/** A Python string literal (JSON's escapes are Python's, for the text vouch writes here). */
const py = (text: string) => JSON.stringify(text);

/** The plugin's manifest (Hermes reads plugin.yaml: name, version, description, provides_hooks). */
export function pluginManifest(): string {
  return [
    `name: ${HERMES_PLUGIN}`,
    'version: 1.0.0',
    'description: "vouch: the agent says done, vouch answers with evidence (the gate at pre_verify, the write guard, the trail)"',
    'provides_hooks: [pre_verify, pre_tool_call, post_tool_call, transform_llm_output]',
    'provides_tools: [vouch_status, vouch_verify]',
    '',
  ].join('\n');
}

/**
 * The plugin itself: a thin shim over `vouch hook hermes EVENT`, the same
 * decisions the Claude Code and Codex hooks get. It holds no verification
 * logic: it turns Hermes's hook arguments into the hook JSON vouch reads,
 * and vouch's replies into Hermes's directives. A vouch that cannot run
 * holds the stop and blocks a guarded call (fail closed) and lets the trail
 * go (fail open), as the other clients' hooks do.
 */
export function pluginSource(self: SelfCommand, env: NodeJS.ProcessEnv = {}): string {
  // A VOUCH_HOME of install's own goes to every vouch the plugin starts (the same trust records); none, and the bytes are as before.
  const home = env.VOUCH_HOME ? resolve(env.VOUCH_HOME) : null;
  const withHome = home === null ? '' : ', env=dict(os.environ, VOUCH_HOME=VOUCH_HOME)';
  return `"""vouch for Hermes Agent, installed by \`vouch install hermes\` (removed by \`vouch uninstall hermes\`).

A thin shim: every decision is vouch's (\`vouch hook hermes EVENT\`, the gate the
Claude Code and Codex hooks use). pre_verify is the Stop gate, pre_tool_call the
write guard, post_tool_call the agent's (untrusted) trail, transform_llm_output
adds the one line a card owes this session; /vouch (status, checks, verify,
report, card) and the vouch_status / vouch_verify tools run vouch itself;
\`hermes vouch doctor\` runs
\`vouch doctor\`. Edit nothing here: vouch compares this folder at every stop.
"""
import json
import os
import shlex
import subprocess
import sys

VOUCH = [${py(self.node)}, ${py(self.entry)}]
${home === null ? '' : `VOUCH_HOME = ${py(home)}\n`}STOP_TIMEOUT = ${STOP_TIMEOUT_SECONDS}
TOOL_TIMEOUT = ${TOOL_TIMEOUT_SECONDS}


def _hook(event, payload, timeout):
    """vouch's reply to one hook event (a dict, {} for nothing to say), or an error string."""
    payload = dict(payload, hook_event_name=event, cwd=os.getcwd())
    try:
        done = subprocess.run(VOUCH + ["hook", "hermes", event], input=json.dumps(payload, default=str),
                              capture_output=True, text=True, timeout=timeout${withHome})
    except Exception as error:  # vouch could not run at all
        return None, "vouch could not run: %s" % error
    if done.stderr:
        sys.stderr.write(done.stderr)
    out = done.stdout.strip()
    try:
        return (json.loads(out) if out else {}), None
    except ValueError:
        return None, "vouch answered something that is not JSON: %r" % out[:200]


def _pre_verify(session_id="", final_response="", attempt=0, **_):
    reply, error = _hook("Stop", {"session_id": session_id, "last_assistant_message": final_response or "",
                                  "stop_hook_active": bool(attempt)}, STOP_TIMEOUT)
    if error:
        return {"action": "continue", "message": "vouch blocked this stop: %s. A gate that cannot run is not a pass; tell a person." % error}
    if reply.get("decision") == "block":
        return {"action": "continue", "message": reply.get("reason") or "vouch blocked this stop."}
    return None


def _pre_tool_call(tool_name="", args=None, session_id="", tool_call_id="", **_):
    reply, error = _hook("PreToolUse", {"session_id": session_id, "tool_name": tool_name, "tool_input": args,
                                        "tool_use_id": tool_call_id}, TOOL_TIMEOUT)
    if error:
        return {"action": "block", "message": "vouch could not check this tool call, so it is denied: %s" % error}
    decision = reply.get("hookSpecificOutput") or {}
    if decision.get("permissionDecision") == "deny":
        return {"action": "block", "message": decision.get("permissionDecisionReason") or "vouch denied this call."}
    return None


def _post_tool_call(tool_name="", args=None, result=None, session_id="", tool_call_id="", duration_ms=None, status=None, **_):
    if status == "blocked":  # a hook denied it: it never ran, there is nothing to trail
        return None
    _hook("PostToolUse", {"session_id": session_id, "tool_name": tool_name, "tool_input": args, "tool_response": result,
                          "tool_use_id": tool_call_id, "duration_ms": duration_ms}, TOOL_TIMEOUT)
    return None


def _transform_llm_output(response_text="", session_id="", **_):
    """The turn's reply, with the one line each card this session opened owes it (it closed, or it asks), shown once."""
    reply, error = _hook("TurnEnd", {"session_id": session_id}, TOOL_TIMEOUT)
    said = (reply or {}).get("systemMessage") if not error else None
    return "%s\\n\\n%s" % (response_text, said) if said else None


def _run(words, timeout=STOP_TIMEOUT, env=None):
    """Runs vouch in the session's directory: (exit code, stdout, stderr), or (None, "", why it could not run)."""
    try:
        done = subprocess.run(VOUCH + list(words), capture_output=True, text=True, timeout=timeout,
                              env=dict(os.environ, **(env or {})${home === null ? '' : ', VOUCH_HOME=VOUCH_HOME'}))
    except Exception as error:
        return None, "", "vouch could not run: %s" % error
    return done.returncode, done.stdout, done.stderr


def _vouch(words, timeout=STOP_TIMEOUT):
    """Runs vouch in the session's directory: its output, or why it could not run."""
    _, out, err = _run(words, timeout)
    return (out + err).strip()


USAGE = "usage: /vouch status | checks | verify [CHECK...] | report [md|json|html] | card <request> [--artifact PATH] [--done-when TEXT] [--proof CHECK]..."
CARD_FLAGS = {"--artifact": "artifact", "--done-when": "done_when", "--proof": "proof", "--budget-attempts": "budget_attempts",
              "--budget-tokens": "budget_tokens"}


def _command(raw_args=""):
    words = (raw_args or "").split()
    sub = words[0] if words else "status"
    if sub not in ("status", "checks", "verify", "report", "card"):
        return USAGE
    if sub == "report":
        return _report(words[1:])
    if sub == "card":
        return _card((raw_args or "").strip()[len("card"):])
    return _vouch([sub] + words[1:])


def _card(text):
    """/vouch card <request>: one batch of questions for what the request leaves open, or none; then the card opens
    (\`vouch card open\`, the engine behind vouch_card_open) as the coordinator, and its contract comes back in one line."""
    try:
        words = shlex.split(text)
    except ValueError as error:
        return "vouch card: cannot read the request (%s). %s" % (error, USAGE)
    given = {"proof": []}
    request = []
    i = 0
    while i < len(words):
        key = CARD_FLAGS.get(words[i])
        if key is None:
            request.append(words[i])
            i += 1
            continue
        if i + 1 >= len(words):
            return "vouch card: %s needs a value. %s" % (words[i], USAGE)
        value = words[i + 1]
        if key == "proof":
            given["proof"] += [p for p in value.split(",") if p]
        else:
            given[key] = value
        i += 2
    goal = " ".join(request).strip()
    if not goal:
        return USAGE
    code, out, err = _run(["checks", "--json"])
    try:
        allowed = [c.get("id") for c in json.loads(out).get("checks", [])] if code == 0 else []
    except ValueError:
        allowed = []
    questions = []
    if "artifact" not in given:
        questions.append("Which file (or glob) does the work change? --artifact PATH")
    if "done_when" not in given:
        questions.append('When is it done, in plain words? --done-when "..."')
    if not given["proof"]:
        questions.append("Which checks prove it? --proof ID (the allowed vouch.yaml has: %s)" % (", ".join(allowed) or "no checks vouch can read: \`/vouch checks\` says why"))
    if questions:
        lines = ["vouch card: before the card opens, answer these in one go (then it opens with no more questions):"]
        lines += ["%d. %s" % (n + 1, q) for n, q in enumerate(questions)]
        lines.append('then: /vouch card %s --artifact ... --done-when "..." --proof ...' % shlex.quote(goal))
        return "\\n".join(lines)
    args = ["card", "open", "--goal", goal, "--artifact", given["artifact"], "--done-when", given["done_when"], "--json"]
    for proof in given["proof"]:
        args += ["--proof", proof]
    for flag in ("--budget-attempts", "--budget-tokens"):
        if CARD_FLAGS[flag] in given:
            args += [flag, given[CARD_FLAGS[flag]]]
    # The person typed it into the chat: vouch opens it as the coordinator (a card's proof is frozen from the allowed spec either way).
    code, out, err = _run(args, env={"VOUCH_ROLE": "coordinator"})
    try:
        opened = json.loads(out)
    except ValueError:
        return (out + err).strip() or "vouch card: vouch said nothing"
    if code == 0 and opened.get("contract_line"):
        return opened["contract_line"]
    problem = opened.get("error") or {}
    return "vouch card: %s%s" % (problem.get("message") or (out + err).strip(), (" (%s)" % problem["hint"]) if problem.get("hint") else "")


def _report(words):
    """The report in the chat (Markdown, or its JSON model); html is written to .vouch/report.html and named."""
    form = words[0] if words else "md"
    if form not in ("md", "json", "html") or len(words) > 1:
        return USAGE
    if form == "html":
        return _vouch(["report", "--format", "html"])
    return _vouch(["report", "--format", form, "--out", "-"])


def _tool(words):
    def handler(args=None, **_):
        checks = [str(c) for c in (args or {}).get("checks") or []]
        return _vouch(words + checks)
    return handler


def _checks_schema(name, description):
    return {"name": name, "description": description, "parameters": {"type": "object", "properties": {
        "checks": {"type": "array", "items": {"type": "string"}, "description": "check ids from vouch.yaml (default: all)"}}}}


def _cli_setup(parser):
    parser.add_argument("action", nargs="?", default="doctor", choices=["doctor"])


def _cli_run(args):
    print(_vouch(["doctor"]))


def register(ctx):
    ctx.register_hook("pre_verify", _pre_verify)
    ctx.register_hook("pre_tool_call", _pre_tool_call)
    ctx.register_hook("post_tool_call", _post_tool_call)
    ctx.register_hook("transform_llm_output", _transform_llm_output)
    ctx.register_command("vouch", _command, description="vouch: status, checks, verify [CHECK...], report [md|json|html], card <request>", args_hint="status|checks|verify|report|card")
    ctx.register_tool("vouch_status", "vouch", _checks_schema("vouch_status", "Each check's status (PASS, FAIL, UNKNOWN, STALE) against the files as they are now."),
                      _tool(["status", "--json"]), description="vouch status")
    ctx.register_tool("vouch_verify", "vouch", _checks_schema("vouch_verify", "Run checks from vouch.yaml and record a receipt each. A PASS you record never lets you stop: the gate runs its own."),
                      _tool(["verify", "--json"]), description="vouch verify")
    ctx.register_cli_command("vouch", "vouch: what is wired here and whether it holds", _cli_setup, _cli_run)
    # The terminal backend goes here: where a Hermes has register_terminal_environment_provider
    # (0.19.0 has none), \`vouch exec\` becomes the environment every terminal command runs in.
`;
}

/**
 * `vouch install hermes`: the plugin's two files (vouch's own, whole), and
 * in config.yaml the plugin enabled (`plugins.enabled`, the list `hermes
 * plugins enable` keeps) and `agent.max_verify_nudges` raised so vouch's
 * own bound decides. A config whose `plugins.enabled` or
 * `agent.max_verify_nudges` already holds something else is refused with
 * the steps to do it by hand (the YAML editor sets keys; it does not merge
 * a list).
 */
export function hermesPluginIntents(install: HermesPluginInstall, env: NodeJS.ProcessEnv, self: SelfCommand): EditIntent[] {
  const dir = join(install.home(env), 'plugins', HERMES_PLUGIN);
  const config = join(install.home(env), 'config.yaml');
  const file = (name: string, content: string): EditIntent => ({
    path: join(dir, name),
    format: 'script',
    summary: `vouch's Hermes plugin: ${name}`,
    changes: [{ kind: 'file', content, mode: 0o644 }],
    manual: [`write ${join(dir, name)} as vouch writes it (docs/gate.md, "Hermes Agent")`],
  });
  return [
    file('plugin.yaml', pluginManifest()),
    file('__init__.py', pluginSource(self, env)),
    {
      path: config,
      format: 'yaml',
      summary: `enable the plugin (plugins.enabled: [${HERMES_PLUGIN}]) and let vouch's gate.max_blocks bound the stop (agent.max_verify_nudges: ${HERMES_MAX_VERIFY_NUDGES})`,
      changes: [
        { kind: 'yaml-set', at: ['plugins', 'enabled'], value: [HERMES_PLUGIN] },
        { kind: 'yaml-set', at: ['agent', 'max_verify_nudges'], value: HERMES_MAX_VERIFY_NUDGES },
      ],
      manual: [
        `open ${config}`,
        `add ${HERMES_PLUGIN} to the list plugins.enabled (or run \`hermes plugins enable ${HERMES_PLUGIN}\`)`,
        `set agent.max_verify_nudges to ${HERMES_MAX_VERIFY_NUDGES} (or to more than gate.max_blocks of every workspace)`,
      ],
    },
  ];
}
