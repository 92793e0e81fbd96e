// Loaded with `node --import`: appends the URL of every ES module Node loads
// to the file named by VOUCH_TEST_MODULE_LOG, so a test can see what a
// command really imported.
import { register } from 'node:module';

const hooks = `
import { appendFileSync } from 'node:fs';
export async function load(url, context, next) {
  appendFileSync(process.env.VOUCH_TEST_MODULE_LOG, url + '\\n');
  return next(url, context);
}`;
register(`data:text/javascript,${encodeURIComponent(hooks)}`);
