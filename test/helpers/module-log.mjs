// Preloaded with `node --import` by test/lazy-load.test.ts: records the URL of
// every module the process loads in the file named by VOUCH_MODULE_LOG.
import { register } from 'node:module';

const hook = `
import { appendFileSync } from 'node:fs';
export async function load(url, context, next) {
  if (process.env.VOUCH_MODULE_LOG) appendFileSync(process.env.VOUCH_MODULE_LOG, url + '\\n');
  return next(url, context);
}`;
register(`data:text/javascript,${encodeURIComponent(hook)}`);
