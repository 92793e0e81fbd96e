import { shellLine } from '../core/quote.js';
import { unreachable } from '../core/unreachable.js';
import type { DispatchNote, GateDecision, GateFinding, GateReason } from '../gate/decision.js';
import type { GuardAnswer } from '../guard/guard.js';
import type { ProtectionRule } from '../guard/protected.js';
import type { PersonAct } from '../guard/shell/vouch-acts.js';
import { explainReason } from './reasons.js';
import { oneLine, visible } from './visible.js';

/** How the agent can run vouch itself: the argv prefix of the hook's own command (node + entry). */
export interface Invocation {
  readonly argv: readonly string[];
}

const DO_NOT_WEAKEN =
  'Do not edit vouch.yaml, .vouch/ or protected files to get past this: vouch denies those writes, and an edited vouch.yaml is not allowed until a person allows it again.';

/**
 * The reason an agent reads when its stop is blocked: what is not proven,
 * what the checks said, and exactly what to do next. One exhaustive switch,
 * so a new gate reason does not compile until it has words. The client shows
 * it to the person too (it travels inside the hook's JSON reply, past the
 * terminal boundary), so it is made visible here: a file name or an output
 * excerpt cannot rewrite the screen it is shown on.
 */
export function renderBlockReason(decision: GateDecision, self: Invocation): string {
  const text = blockText(decision, self);
  const more = dispatchLines(decision, self, decision.reason === 'dispatches_unsettled');
  return visible(more.length > 0 ? `${text}\n${more.join('\n')}` : text);
}

function blockText(decision: GateDecision, self: Invocation): string {
  const ws = decision.workspace ?? '.';
  const lead = 'vouch blocked this stop:';
  const reason: GateReason = decision.reason;
  const own = decision.dispatch?.id ?? '(none)';
  switch (reason) {
    case 'not_passing':
    case 'checks_running':
      return notPassing(decision, self);
    case 'card_not_passing':
      return (
        `${lead} you worked on a card, and the gate ran its frozen proof when you stopped: ${decision.detail ?? 'not a PASS'}. ` +
        'The card stays open and the run counts as one of its attempts. Fix the work, not the proof: the proof was frozen when the card was opened, and neither you nor vouch.yaml changes it. ' +
        `Then stop again: the gate runs the proof once more. If you cannot make it pass, say so in your report; the coordinator decides (retry, rescope, split, abandon or ask). ${DO_NOT_WEAKEN}`
      );
    case 'no_report':
      return (
        `${lead} you stopped with no final message, so you have not reported (dispatch ${own}); silence is not a claim. ` +
        'End with your report: what you did and how you know it, in words, or as JSON {"summary": "...", "deliverables": [{"what": "...", "evidence": "executed|observed|believed", "how": "..."}]}. ' +
        'vouch then grades it with the checks in vouch.yaml; your report is your claim, not evidence.'
      );
    case 'pin_drift':
      return (
        `${lead} vouch.yaml changed while you worked (${decision.detail ?? ''}), so your work is not graded against a spec that could have been edited along the way. ` +
        `A person must decide: close this dispatch (\`${shellLine([...self.argv, '-C', ws, 'dispatch', 'close', own, '--reason', 'spec changed mid-flight'])}\`) and dispatch the work again under the current spec. ${DO_NOT_WEAKEN}`
      );
    case 'dispatches_unsettled':
      return `${lead} dispatches this session ordered are half-closed: reported, graded or contradicted, and never terminated. Work that is never closed out goes missing.`;
    case 'spec_missing':
      return `${lead} vouch.yaml is gone from ${ws}, but vouch was already gating this session; a removed spec does not turn into a pass. Ask a person to restore it (for example \`git checkout -- vouch.yaml\`); you may not write it.`;
    case 'spec_invalid':
      return `${lead} vouch.yaml in ${ws} is not a valid spec, so nothing can be graded: ${decision.detail ?? ''}\nA person must fix it (\`vouch checks\` lists every problem). ${DO_NOT_WEAKEN}`;
    case 'spec_not_allowed':
      return `${lead} ${decision.detail ?? 'vouch.yaml is not allowed'} (${ws}). Nothing in it runs until a person has read it and run \`vouch allow\` there; an absent grade is not a pass. Ask them. ${DO_NOT_WEAKEN}`;
    case 'trust_unreadable':
      return `${lead} vouch cannot read whether vouch.yaml is allowed: ${decision.detail ?? ''}. A person must fix the trust store (VOUCH_HOME).`;
    case 'tier_uncovered':
      return `${lead} this session changed files, and ${decision.detail ?? 'no blocking check applies at this tier'}, so nothing could grade the work; an absent grade is not a pass. A person must declare a blocking check for this tier in vouch.yaml.`;
    case 'ledger_unusable':
      return `${lead} vouch cannot use its ledger, so it can neither judge nor record this stop: ${decision.detail ?? ''}. A person must look at .vouch/ledger.db.`;
    case 'hook_error':
      return `${lead} the vouch hook failed, and a stop is never let through on an error: ${decision.detail ?? ''}. Tell a person; this is a problem in vouch or its installation, not in your work.`;
    case 'protected_changed':
      return (
        `${lead} files the spec protects changed during this session: ${decision.detail ?? ''}. The gate compares them by content with what they were at the session's first hook, whatever wrote them (a script, a link, git). ` +
        `Put them back as they were (for example \`git checkout -- PATH\` if they are committed), or, if the change is right, ask a person to review it and run \`vouch allow\` in ${ws}, which accepts the files as they are. ${DO_NOT_WEAKEN}`
      );
    case 'wiring_changed':
      return (
        `${lead} the gate's own wiring changed during this session: ${decision.detail ?? ''} (hook settings, the git hook, the trust record or the trusted keys). ` +
        `An agent may not unhook or blind its own gate. Put them back as they were, or ask a person to review the change and run \`vouch allow\` in ${ws}.`
      );
    case 'box_off':
      return (
        `${lead} vouch.yaml sets gate.require_box, and this session ran without the box: ${decision.detail ?? ''}. ` +
        `Work done outside the box could have rewritten what vouches (the ledger, the spec, the hook settings) unseen, so it is not graded. A person must turn the box on (\`vouch install claude-code\` in ${ws}) and start a new session; you may not change the sandbox settings yourself.`
      );
    case 'session_record_damaged':
      return `${lead} vouch's record of this session under VOUCH_HOME was altered: ${decision.detail ?? ''}. A person must look at it (\`vouch sessions\`).`;
    case 'person_act_in_session':
      return (
        `${lead} the ledger shows a person's act recorded during this session: ${decision.detail ?? ''}. Removing receipts or the trail, changing a card's proof or closing it by force, and grading a dispatch change what vouches for your work: they are a person's acts, never yours, whoever ran them. ` +
        `A person must review them; if they were theirs, running \`vouch allow\` in ${ws} accepts the workspace as it is. ${DO_NOT_WEAKEN}`
      );
    case 'all_pass':
    case 'nothing_relevant':
    case 'no_blocking_checks':
    case 'no_spec':
    case 'ungraded':
    case 'max_blocks':
      return `vouch: ${reason}`;
    default:
      return unreachable(reason);
  }
}

function notPassing(decision: GateDecision, self: Invocation): string {
  const owing = decision.findings.filter((f) => f.status !== 'PASS');
  const ids = owing.map((f) => f.id);
  const n = owing.length;
  const checks = `${n} blocking check${n === 1 ? '' : 's'} relevant to this session's changes ${n === 1 ? 'is' : 'are'}`;
  const verifyCli = shellLine([...self.argv, '-C', decision.workspace ?? '.', 'verify', ...ids]);
  const mcp = `the MCP tool vouch_verify with {"check_ids": ${JSON.stringify(ids)}}`;
  const lines: string[] = [];
  if (decision.onStop === 'require') {
    lines.push(`vouch blocked this stop: ${checks} not a fresh PASS (gate.on_stop: require, so vouch does not run them here).`, '');
    lines.push(...owing.flatMap(findingLines));
    lines.push(
      '',
      `A PASS recorded inside your own run does not count. Ask a person to run, in their own terminal: ${verifyCli}`,
      `(or, with a verifier service, \`vouch verify --remote URL ${ids.join(' ')}\`), then stop again.`,
    );
  } else {
    lines.push(`vouch blocked this stop: ${checks} not a fresh PASS.`, '');
    lines.push(...owing.flatMap(findingLines));
    const onTime = owing.filter((f) => f.runningSince !== null || f.budgetExhausted);
    const budget = `${decision.budgetSeconds ?? '?'}s`;
    if (onTime.length > 0) {
      // Nothing the agent can fix: the suite takes longer than the budget. The next stop waits for the run the gate started.
      lines.push(
        '',
        onTime.length === owing.length
          ? `Nothing here is yours to fix: ${onTime.length === 1 ? 'this check takes' : 'these checks take'} longer than the gate's budget (${budget}). Stop again: vouch ${onTime.some((f) => f.runningSince !== null) ? 'keeps running it out of your reach and waits for the result' : 'runs it again'} within the budget each time (a stop held only by a run still going never counts towards gate.max_blocks).`
          : `${onTime.map((f) => f.id).join(', ')} took longer than the gate's budget (${budget}); the next stop picks up ${onTime.length === 1 ? 'its' : 'their'} result. Fix the cause of the others, then stop again.`,
        `A person can raise gate.budget_seconds in vouch.yaml, split a long check into shorter ones, or lower its timeout:; you may not.`,
      );
    } else {
      lines.push('', `Fix the cause, then stop again: vouch runs these checks itself when you stop (budget ${budget}).`);
    }
    lines.push(
      `A receipt you record yourself (${verifyCli}, or ${mcp}) shows you the result, but evidence made inside your run never lets you stop: only the gate's own run does.`,
    );
  }
  lines.push(DO_NOT_WEAKEN);
  if (decision.maxBlocks !== null && decision.blocks > 1) {
    lines.push(
      `(Blocked ${decision.blocks} times in a row with no file change; after ${decision.maxBlocks} the stop goes through recorded as escaped, unverified.)`,
    );
  }
  return lines.join('\n');
}

function findingLines(finding: GateFinding): string[] {
  const head = `  ${finding.id}: ${finding.status} (${finding.reason})${finding.detail ? ` ${oneLine(finding.detail)}` : ''}${finding.receipt ? ` · receipt ${finding.receipt}` : ''}`;
  const lines = [head];
  if (finding.runningSince !== null) {
    lines.push(`    still running in the gate's own runner, out of your reach (started ${finding.runningSince}): the next stop picks up its result`);
  } else if (finding.budgetExhausted) {
    lines.push(
      finding.ranNow ? "    the gate's time budget ran out while it ran; its process group was stopped" : "    not run: the gate's time budget ran out first",
    );
  } else if (finding.status !== 'PASS') {
    const { meaning } = explainReason(finding.reason, finding.id);
    lines.push(`    ${meaning}`);
  }
  if (finding.excerpt) lines.push(...finding.excerpt.split('\n').map((line) => `    │ ${line}`));
  return lines;
}

/**
 * The session's dispatches that are not terminated: the half-closed ones
 * with what to do about each (they hold the stop), then the running ones
 * (listed, never holding it).
 */
function dispatchLines(decision: GateDecision, self: Invocation, holding: boolean): string[] {
  const ws = decision.workspace ?? '.';
  const cli = (...args: string[]) => shellLine([...self.argv, '-C', ws, ...args]);
  const unsettled = decision.dispatches.filter((d) => !d.running);
  const running = decision.dispatches.filter((d) => d.running);
  const lines: string[] = [];
  if (unsettled.length > 0) {
    lines.push(holding ? '' : '\nAlso half-closed (these hold the stop too):');
    for (const d of unsettled) lines.push(`  ${noteHead(d)}`, `    ${nextStep(d, cli)}`);
  }
  if (running.length > 0) {
    lines.push('', `Still running (listed, not holding the stop): ${running.map((d) => `${d.id} (${d.state}, ${oneLine(d.label)})`).join('; ')}`);
  }
  return lines;
}

function noteHead(d: DispatchNote): string {
  return `dispatch ${d.id}: ${d.state} · verdict ${d.verdict}${d.tier ? ` · tier ${d.tier}` : ''} · ${oneLine(d.label)}`;
}

function nextStep(d: DispatchNote, cli: (...args: string[]) => string): string {
  switch (d.state) {
    case 'reported':
      return d.verdict === 'ungraded'
        ? `nothing graded its claim yet: grade it (${cli('dispatch', 'grade', d.id)}); if nothing at its tier can, check its work yourself and close it with your reason (${cli('dispatch', 'close', d.id, '--reason', '...')})`
        : `grade it: ${cli('dispatch', 'grade', d.id)}`;
    case 'verified':
      return `its claim checked out; close it: ${cli('dispatch', 'close', d.id)}`;
    case 'contradicted':
      return `its claim did not check out and its agent is gone: fix the work (or dispatch it again), then close it with the reason (${cli('dispatch', 'close', d.id, '--reason', '...')})`;
    case 'damaged':
      return `its record cannot be believed (edited or missing entries): a person must look (${cli('fleet', '--json')}, ${cli('audit')}), then close it`;
    case 'dispatched':
    case 'terminated':
      return 'nothing to do';
  }
}

/** For people, on stderr (and in Claude Code's systemMessage): what the gate decided, loudly when a session escaped unverified. */
export function renderGateNotice(decision: GateDecision): string | null {
  const running = decision.dispatches.filter((d) => d.running && decision.kind !== 'block');
  const listed =
    running.length > 0 ? `vouch: still running (not holding the stop): ${running.map((d) => `dispatch ${d.id} (${oneLine(d.label)})`).join(', ')}` : null;
  const main = gateNotice(decision);
  const text = main && listed ? `${main}\n${listed}` : (main ?? listed);
  return text === null ? null : visible(text);
}

function gateNotice(decision: GateDecision): string | null {
  switch (decision.kind) {
    case 'escaped': {
      const owing = decision.findings.filter((f) => f.status !== 'PASS').map((f) => `${f.id} ${f.status} (${f.reason})`);
      return (
        `vouch: ESCAPED: this session stopped UNVERIFIED after ${decision.maxBlocks ?? '?'} blocks in a row with no file change (gate.max_blocks). ` +
        `It is recorded in the ledger as escaped${decision.entry ? ` (entry ${decision.entry})` : ''}.` +
        (owing.length > 0 ? ` Not passing: ${owing.join(', ')}.` : '') +
        (decision.detail ? ` ${decision.detail}.` : '')
      );
    }
    case 'block':
      return `vouch: blocked the stop (${decision.reason})`;
    case 'allow':
      if (decision.reason === 'no_spec') return `vouch: ${decision.detail ?? 'no vouch.yaml'}; nothing to gate`;
      if (decision.reason === 'ungraded') return `vouch: no verdict: ${decision.detail ?? ''} (the session's own stop is held until it is closed)`;
      return null;
  }
}

/** The reason an agent reads when a write (or a person's act) is denied; the client shows it to the person too. */
export function renderDenial(answer: Exclude<GuardAnswer, { kind: 'allow' }>): string {
  return visible(denialText(answer));
}

function denialText(answer: Exclude<GuardAnswer, { kind: 'allow' }>): string {
  if (answer.kind === 'deny_act') return `vouch denied this ${answer.tool} command: it runs \`${oneLine(answer.act.command)}\`. ${actWords(answer.act)}`;
  if (answer.kind === 'deny_unreadable') {
    return `vouch denied this ${answer.tool} call: ${answer.why}, so what it would write is unknown. Send the patch as apply_patch takes it: "*** Begin Patch", one "*** Add File: PATH", "*** Update File: PATH" or "*** Delete File: PATH" hunk per file, then "*** End Patch".`;
  }
  const path = oneLine(answer.path);
  const what = answer.via === answer.tool ? `this ${answer.tool} of ${path}` : `this ${answer.tool} command: it writes ${path} (${oneLine(answer.via)})`;
  const alias = answer.hardLinkOf === undefined ? '' : `, which is another name (a hard link) of ${oneLine(answer.hardLinkOf)}`;
  return `vouch denied ${what}${alias}. ${protectionWords(answer.rule, answer.hardLinkOf === undefined ? path : oneLine(answer.hardLinkOf))}`;
}

function actWords(act: PersonAct): string {
  switch (act.kind) {
    case 'trust':
      return "Trusting vouch.yaml is a person's act: they read the spec and run it in their own terminal, outside the agent. If the spec needs to change, say so and ask them.";
    case 'wiring':
      return "Wiring vouch's gate in or out is a person's act: the gate exists so that you do not decide when your own work is done. If the gate is in the way, say why and ask a person.";
    case 'keys':
      return "Signing keys decide which receipts are trusted: creating one is a person's act, in their own terminal.";
    case 'hook':
      return "vouch's hooks are your client's to run, never yours: a hook you answer yourself proves nothing. To see where you stand, run `vouch status`.";
    case 'git_hooks':
      return "git's pre-push hook is vouch's gate on what you push; routing around it (--no-verify, core.hooksPath) is a person's decision. Make the checks pass, or ask a person.";
    case 'record':
      return "The receipts and your session's trail are what the gate judges your work by: removing them is a person's act, between sessions. A stop after a gc recorded during the session is blocked, whoever ran it.";
    case 'card':
      return "Changing a card's proof, deciding about it or closing it without a fresh PASS is a person's act: the card's proof is what your work is held to. Make the proof pass (`vouch card verify ID`), or say what is wrong with it and ask a person.";
    case 'grade':
      return "A grade is the checker's answer to an agent's claim, made outside the agent: the gate grades a subagent's work at its stop itself. Report, or ask a person to grade.";
    default:
      return unreachable(act);
  }
}

function protectionWords(rule: ProtectionRule, path: string): string {
  switch (rule.kind) {
    case 'spec':
      return 'vouch.yaml is the operator\'s definition of "done"; the agent may not change it. If a check is wrong, say so and ask a person.';
    case 'state':
      return '.vouch/ holds the receipts that prove the work; the agent may not write or remove it.';
    case 'protect':
      return `${path} is protected by vouch.yaml (protect: ${rule.glob}); the agent may not write it. Make the work pass as these files are, or ask a person.`;
    case 'cards':
      return ".vouch/cards/ holds task cards' proof scripts: the verifier writes them from the card's done-when, never whoever does the work. If a proof looks wrong, say so; a coordinator decides (`vouch card decide ID revise-script`).";
    case 'verifier_scope':
      return 'this agent acts as the verifier (VOUCH_ROLE=verifier, or a subagent named verifier): it writes proof scripts under .vouch/cards/ only, and never the work it verifies.';
    case 'wiring':
      return `${path} is part of vouch's own wiring: ${rule.what}. The agent may not change, move or remove it; the gate decides when your work is done, and a person decides how it is wired.`;
    default:
      return unreachable(rule);
  }
}
