import * as z from 'zod';
import { reportSchema } from '../../report/model/schema.js';
import { answer, defineTool } from '../tool.js';

/** The report as data: what `vouch report --format json` writes, for an agent or an orchestrator to read. */
export const reportTool = defineTool({
  name: 'vouch_report',
  title: 'vouch report',
  description:
    "Everything vouch's report shows, as data (the JSON Schema is schema/report.schema.json): each check's status now and its receipt history; " +
    "each agent session with what the agent said at every stop beside the gate's answer; every dispatch with its claim against its independent grade, " +
    'and drift (its pinned vouch.yaml is not the one in force: an open one cannot be graded); the task cards and their decisions; the ledger integrity as vouch audit sees it; ' +
    "the spec's trust state. Claims are the agents' own words, never evidence. Takes no arguments; runs nothing and records nothing.",
  input: z.object({}).strict(),
  // The report's own schema, checked by the SDK against every answer: nothing outside it goes out.
  output: z.strictObject(reportSchema.shape),
  readOnly: true,
  async run(_args, call) {
    // The report's modules (audit walk, cards, fleet) load only when this tool is called.
    const [{ buildModel }, { ReportSource, specTrust }, { renderSummaryMarkdown }] = await Promise.all([
      import('../../report/model/build.js'),
      import('../../report/source.js'),
      import('../../report/markdown/page.js'),
    ]);
    // An invalid vouch.yaml does not end the call: the report says so, as `vouch report` does.
    const loaded = await call.session.load(call.workspace);
    const spec = loaded.ok ? specTrust(call.home, call.workspace.root, loaded.value) : ({ kind: 'invalid', message: loaded.error.message } as const);
    const ledger = await call.session.read(call.workspace);
    const model = await buildModel(new ReportSource(call.workspace, spec, ledger, call.home, call.env, new Date()));
    const text = `${renderSummaryMarkdown(model)}\n\nThe whole report (checks with their history, sessions, dispatches, cards, integrity) is this answer's structured content.`;
    // Built read-only; the SDK only checks and serialises it. The schema's output type is the same shape, mutable.
    return answer(model as z.output<typeof reportSchema>, text);
  },
});
