import { agentRun } from '../core/agent-run.js';
import { fail } from '../core/problem.js';

/**
 * Refuses an act that only the person may do (allowing or denying a spec,
 * writing and allowing a new one) when this process runs inside an agent
 * run: an agent that edited vouch.yaml must not be able to allow its own
 * edit. The markers are labels the agent could strip (`env -u CLAUDECODE`);
 * the PreToolUse guard also denies these commands, and the person reading
 * the spec before allowing it is the real control (see the README).
 */
export function refuseInAgentRun(env: NodeJS.ProcessEnv, act: string): void {
  const run = agentRun(env);
  if (run === null) return;
  fail({
    code: 'agent_run',
    message: `\`${act}\` is a person's act, and this runs inside an agent run (${run.agent}, seen by ${run.marker})`,
    hint: `a person reads vouch.yaml and runs \`${act}\` in their own terminal, outside the agent; the agent can ask for it`,
  });
}
