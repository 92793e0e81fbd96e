import { startFields } from '../core/start.js';

/**
 * What one invocation did that is worth counting: how many times it read
 * vouch.yaml and opened a ledger, which bundle answered it and which heavy
 * parts it evaluated. Printed on stderr at the end when VOUCH_TRACE=1, so
 * that a test (and a curious person) can see that a Stop hook reads its spec
 * once and opens its ledger once, from the hot bundle.
 */
export class Trace {
  private readonly counts = new Map<string, number>();

  count(what: 'spec_reads' | 'ledger_opens'): void {
    this.counts.set(what, (this.counts.get(what) ?? 0) + 1);
  }

  /** `vouch trace: spec_reads=1 ledger_opens=1 bundle=hot code_cache=accepted loaded=-`, or null when tracing is off. */
  line(env: NodeJS.ProcessEnv): string | null {
    if (env.VOUCH_TRACE !== '1') return null;
    const fields = ['spec_reads', 'ledger_opens'].map((name) => `${name}=${this.counts.get(name) ?? 0}`);
    return `vouch trace: ${fields.join(' ')} ${startFields()}`;
  }
}
