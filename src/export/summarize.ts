import type { StatementSummary } from './bundle-finding.js';
import { LINK_PREDICATE, STATEMENT_TYPE, TEST_RESULT_PREDICATE } from './statement.js';

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);

/** ResourceDescriptors naming files by SHA-256; a string saying what is wrong otherwise. */
function files(list: unknown, where: string, allowEmpty: boolean): { name: string; sha256: string }[] | string {
  if (!Array.isArray(list) || (!allowEmpty && list.length === 0)) return `${where} is not a non-empty list`;
  const out: { name: string; sha256: string }[] = [];
  for (const [i, entry] of list.entries()) {
    const digest = isObject(entry) && isObject(entry.digest) ? entry.digest.sha256 : undefined;
    if (!isObject(entry) || typeof entry.name !== 'string' || typeof digest !== 'string' || !/^[0-9a-f]{64}$/.test(digest)) {
      return `${where}[${i}] has no name and sha256 digest`;
    }
    out.push({ name: entry.name, sha256: digest });
  }
  return out;
}

/**
 * Reads back a statement vouch exported: which check, receipt and verdict,
 * and every file it names. Anything else is refused with the reason.
 */
export function summarizeStatement(statement: unknown): StatementSummary | string {
  if (!isObject(statement) || statement._type !== STATEMENT_TYPE) return `_type is not ${STATEMENT_TYPE}`;
  const subject = files(statement.subject, 'subject', false);
  if (typeof subject === 'string') return subject;
  const predicate = statement.predicate;
  if (!isObject(predicate)) return 'predicate is not an object';
  if (statement.predicateType === LINK_PREDICATE) {
    const materials = files(predicate.materials ?? [], 'predicate.materials', true);
    if (typeof materials === 'string') return materials;
    const byproducts = isObject(predicate.byproducts) ? predicate.byproducts : {};
    const receipt = isObject(byproducts.receipt) ? text(byproducts.receipt.id) : null;
    const environment = isObject(predicate.environment) ? predicate.environment : {};
    return {
      predicate: 'link',
      check: text(predicate.name),
      receipt,
      verdict: text(byproducts.verdict),
      definition: text(environment.definition_digest),
      files: [...materials, ...subject],
    };
  }
  if (statement.predicateType === TEST_RESULT_PREDICATE) {
    const configuration = Array.isArray(predicate.configuration) ? predicate.configuration : [];
    const ref = configuration.find((entry): entry is Json => isObject(entry) && typeof entry.name === 'string' && entry.name.startsWith('vouch-receipt:'));
    const annotations = ref && isObject(ref.annotations) ? ref.annotations : {};
    const verdict = text(annotations.verdict) ?? (predicate.result === 'PASSED' ? 'PASS' : predicate.result === 'FAILED' ? 'FAIL' : null);
    const receipt = ref ? (ref.name as string).slice('vouch-receipt:'.length) : null;
    const environment = isObject(annotations.environment) ? annotations.environment : {};
    return { predicate: 'test-result', check: text(annotations.check_id), receipt, verdict, definition: text(environment.definition_digest), files: subject };
  }
  return `predicateType ${JSON.stringify(statement.predicateType)} is not one vouch exports (${LINK_PREDICATE} or ${TEST_RESULT_PREDICATE})`;
}
