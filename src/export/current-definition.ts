import type { Spec } from '../spec/model.js';
import type { BundleFinding, StatementSummary } from './bundle-finding.js';

/**
 * Whether the check a statement names is still defined, in this
 * workspace's vouch.yaml, exactly as it was when the receipt ran: the
 * definition digest, as `status` compares it (a different one is STALE,
 * definition_changed). The files alone do not say what was run on them.
 */
export function compareDefinition(spec: Pick<Spec, 'checks'>, summary: StatementSummary): BundleFinding | undefined {
  const check = summary.check === null ? undefined : spec.checks.find((c) => c.id === summary.check);
  if (!check) return { code: 'definition_changed', detail: `vouch.yaml here defines no check ${JSON.stringify(summary.check ?? '')}` };
  if (summary.definition === null) return { code: 'definition_changed', detail: 'the statement records no definition digest to compare' };
  if (check.definitionDigest !== summary.definition) {
    return {
      code: 'definition_changed',
      detail: `check "${check.id}" is defined differently now (definition ${check.definitionDigest.slice(0, 12)}…, the receipt ran ${summary.definition.slice(0, 12)}…)`,
    };
  }
  return undefined;
}
