// Preloaded with `node --import` by the lazy-load tests: records the URL of
// every module the process loads in the file named by VOUCH_MODULE_LOG.
// Both ways in: ES modules through a loader hook, and CommonJS require()
// (better-sqlite3 is required on the first ledger open: src/ledger/sqlite/driver.ts),
// which loader hooks do not see in Node 20.
import { appendFileSync } from 'node:fs';
import Module, { register } from 'node:module';
import { pathToFileURL } from 'node:url';

const hook = `
import { appendFileSync } from 'node:fs';
export async function load(url, context, next) {
  if (process.env.VOUCH_MODULE_LOG) appendFileSync(process.env.VOUCH_MODULE_LOG, url + '\\n');
  return next(url, context);
}`;
register(`data:text/javascript,${encodeURIComponent(hook)}`);

const requireLoad = Module._load;
Module._load = function (request, parent, isMain) {
  const exports = requireLoad.call(this, request, parent, isMain);
  if (process.env.VOUCH_MODULE_LOG && !request.startsWith('node:')) {
    try {
      appendFileSync(process.env.VOUCH_MODULE_LOG, `${pathToFileURL(Module._resolveFilename(request, parent, isMain)).href}\n`);
    } catch {
      // A built-in without the node: prefix: not a file.
    }
  }
  return exports;
};
