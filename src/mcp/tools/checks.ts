import * as z from 'zod';
import { answer, defineTool } from '../tool.js';
import { specTrust } from '../workspace-call.js';
import { trust } from '../schemas.js';

const check = z.object({
  id: z.string(),
  proves: z.string(),
  blocking: z.boolean(),
  tier: z.string().nullable(),
  run: z.array(z.string()).describe('the argv the operator declared (with shell: true, one shell script)'),
  shell: z.boolean(),
  cwd: z.string(),
  timeout_s: z.number().int(),
  sources: z.array(z.string()),
  tests: z.array(z.string()),
  artifacts: z.array(z.string()),
  exclude: z.array(z.string()),
});

/** The configured checks and what a PASS of each proves. */
export const checksTool = defineTool({
  name: 'vouch_checks',
  title: 'List vouch checks',
  description:
    "Lists the checks the operator declared in this workspace's vouch.yaml: each id, what a PASS of it proves, whether it blocks, and the command and scope it covers. " +
    'Use these ids with vouch_status and vouch_verify. Takes no arguments; runs nothing.',
  input: z.object({}).strict(),
  output: z.object({
    workspace: z.string(),
    spec: z.object({ path: z.string(), sha256: z.string(), trust }),
    checks: z.array(check),
  }),
  readOnly: true,
  async run(_args, call) {
    const spec = await call.spec();
    const allowed = specTrust(call, spec);
    const checks = spec.checks.map((c) => ({
      id: c.id,
      proves: c.proves,
      blocking: c.block,
      tier: c.tier,
      run: [...c.run],
      shell: c.shell,
      cwd: c.cwd,
      timeout_s: c.timeout,
      sources: [...c.sources],
      tests: [...c.tests],
      artifacts: [...c.artifacts],
      exclude: [...c.exclude],
    }));
    const lines = [
      `${checks.length} check${checks.length === 1 ? '' : 's'} in ${spec.path}${allowed === 'allowed' ? '' : ` (NOT ALLOWED: ${allowed === 'changed' ? 'edited since a person allowed it' : allowed === 'denied' ? 'denied' : allowed === 'outdated' ? 'allowed by an earlier vouch, to be allowed again' : 'never allowed'}; nothing will run until a person runs \`vouch allow\`)`}:`,
      ...checks.map((c) => `- ${c.id}${c.blocking ? '' : ' (advisory)'}: ${c.proves}`),
    ];
    return answer({ workspace: call.workspace.root, spec: { path: spec.path, sha256: spec.sha256, trust: allowed }, checks }, lines.join('\n'));
  },
});
