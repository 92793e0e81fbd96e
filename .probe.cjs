// src/ledger/sqlite/sqlite-ledger.ts
var import_node_fs3 = require("node:fs");
var import_node_path2 = require("node:path");

// src/core/builtins.ts
var import_node_module = require("node:module");
var import_meta = {};
var load = (0, import_node_module.createRequire)(import_meta.url);
function nodeCrypto() {
  return load("node:crypto");
}

// src/core/ids.ts
var ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz";
function newId(now = Date.now()) {
  let time = "";
  let t = now;
  for (let i = 0; i < 10; i++) {
    time = ALPHABET[t % 32] + time;
    t = Math.floor(t / 32);
  }
  const random = nodeCrypto().randomBytes(16);
  let rest = "";
  for (const byte of random) rest += ALPHABET[byte % 32];
  return time + rest;
}
var ID_LENGTH = 26;

// src/scope/manifest.ts
function manifestDigest(manifest) {
  const hash = nodeCrypto().createHash("sha256");
  let text = '{"files":[';
  let ascii = true;
  const flush = () => {
    hash.update(text, ascii ? "latin1" : "utf8");
    text = "";
    ascii = true;
  };
  let first = true;
  for (const [path2, sha2562, size, group] of manifest.files) {
    if (!Number.isSafeInteger(size)) throw new TypeError(`manifest size of ${path2} is not an integer`);
    let quoted;
    if (PLAIN.test(path2)) quoted = `"${path2}"`;
    else {
      quoted = JSON.stringify(path2);
      ascii &&= !NON_ASCII.test(quoted);
    }
    text += `${first ? "" : ","}[${quoted},"${sha2562}",${size},"${group}"]`;
    first = false;
    if (text.length >= 1 << 16) flush();
  }
  flush();
  text = '],"refused":[';
  first = true;
  for (const [path2, why] of manifest.refused) {
    text += `${first ? "" : ","}[${JSON.stringify(path2)},${JSON.stringify(why)}]`;
    first = false;
  }
  hash.update(`${text}],"v":1}`, "utf8");
  return hash.digest("hex");
}
var PLAIN = /^[\u0020\u0021\u0023-\u005b\u005d-\u007e]*$/;
var NON_ASCII = /[^\u0000-\u007f]/;

// src/ledger/ledger.ts
function manifestFrom(manifest) {
  return typeof manifest === "function" ? manifest() : manifest;
}
var RECENT_SLACK_MS = 5e3;
function parseRecentBody(text) {
  if (typeof text !== "string") return null;
  try {
    const value = JSON.parse(text);
    return typeof value === "object" && value !== null && !Array.isArray(value) ? value : null;
  } catch {
    return null;
  }
}
var LedgerError = class extends Error {
  constructor(kind, message, path2, options) {
    super(message, options);
    this.kind = kind;
    this.path = path2;
    this.name = "LedgerError";
  }
  kind;
  path;
};
var EventConflict = class extends Error {
  constructor(subject, latest) {
    super(`another event about ${subject} was appended first`);
    this.subject = subject;
    this.latest = latest;
    this.name = "EventConflict";
  }
  subject;
  latest;
};
function pickReceipt(key, rows, decode) {
  const unique = [...new Map(rows.map((row) => [row.id, row])).values()].sort((a, b) => a.id < b.id ? -1 : 1);
  const exact = unique.find((row) => row.id === key);
  if (exact) return { kind: "found", receipt: decode(exact) };
  if (unique.length === 0) return { kind: "none" };
  if (unique.length > 1) return { kind: "ambiguous", ids: unique.map((row) => row.id) };
  return { kind: "found", receipt: decode(unique[0]) };
}
var NOTHING_REMOVED = { removed: 0, trailRemoved: 0, manifestsRemoved: 0, gcEntryId: null };

// src/core/native.ts
var import_node_fs = require("node:fs");
var import_node_module2 = require("node:module");
var import_node_url = require("node:url");
var import_meta2 = {};
var ADDON = "vouch_native.node";
var CANDIDATES = ["../../build/Release/", "../build/Release/", "../../../build/Release/"];
var loaded;
function nativeAddon(env = process.env) {
  if (env.VOUCH_NATIVE === "0") return { addon: void 0, path: "js:disabled" };
  if (loaded) return loaded;
  const require2 = (0, import_node_module2.createRequire)(import_meta2.url);
  let path2 = "js:absent";
  for (const dir of CANDIDATES) {
    const file = (0, import_node_url.fileURLToPath)(new URL(dir + ADDON, import_meta2.url));
    if (!(0, import_node_fs.existsSync)(file)) continue;
    try {
      const addon = require2(file);
      if (typeof addon.lstatBatch === "function" && typeof addon.isatty === "function") return loaded = { addon, path: "native" };
      path2 = "js:failed";
    } catch {
      path2 = "js:failed";
    }
  }
  return loaded = { addon: void 0, path: path2 };
}

// src/core/hash.ts
var bytes = (parts2) => parts2.map((part) => typeof part === "string" ? Buffer.from(part, "utf8") : part);
function sha256Of(...parts2) {
  const native = nativeAddon().addon?.sha256;
  if (native) return native(bytes(parts2));
  const hash = nodeCrypto().createHash("sha256");
  for (const part of parts2) hash.update(part);
  return hash.digest();
}

// src/core/jcs.ts
function canonicalize(value) {
  return serialize(value, "$");
}
function serialize(value, where) {
  if (value === null) return "null";
  switch (typeof value) {
    case "boolean":
      return value ? "true" : "false";
    case "number":
      if (!Number.isFinite(value)) {
        throw new TypeError(`JCS: ${where} is ${String(value)}; only finite numbers have a canonical form`);
      }
      return JSON.stringify(value);
    case "string":
      return JSON.stringify(value);
    case "object": {
      if (Array.isArray(value)) {
        return `[${value.map((item, i) => serialize(item, `${where}[${i}]`)).join(",")}]`;
      }
      const record = value;
      const keys = Object.keys(record).filter((key) => record[key] !== void 0).sort();
      const members = keys.map((key) => `${JSON.stringify(key)}:${serialize(record[key], `${where}.${key}`)}`);
      return `{${members.join(",")}}`;
    }
    default:
      throw new TypeError(`JCS: ${where} is a ${typeof value}; only JSON values have a canonical form`);
  }
}

// src/core/digest.ts
var SHA256_HEX = /^[0-9a-f]{64}$/;
function isSha256(value) {
  return typeof value === "string" && SHA256_HEX.test(value);
}
function sha256(data) {
  return sha256Of(data).toString("hex");
}
function digestJson(value) {
  return sha256(canonicalize(value));
}

// src/ledger/gc-record.ts
function gcRecord(id, policy, doomed) {
  return {
    v: 1,
    kind: "gc",
    id,
    at: policy.now.toISOString(),
    removed: doomed.length,
    first_seq: doomed[0].seq,
    last_seq: doomed[doomed.length - 1].seq,
    removed_digest: sha256(doomed.map((row) => `${row.seq}:${row.hash}
`).join("")),
    policy: { keep_days: policy.keepDays ?? null, keep_per_check: policy.keepPerCheck ?? null },
    // Only on the automatic gc's records, so a person's `vouch gc` records stay as they were.
    ...policy.auto === true && { auto: true }
  };
}
function releasedLogs(removed) {
  const logs = [];
  for (const receipt of removed) {
    const digest = receipt.body.log?.sha256;
    if (receipt.intact && isSha256(digest)) logs.push({ receipt: receipt.body.id, sha256: digest });
  }
  return logs.length > 0 ? { releasedLogs: logs } : {};
}
function applyRetention(selected, policy) {
  const retain = policy.retain;
  const kept = !retain ? [...selected] : selected.filter((row) => {
    if (row.kind === "trail") return row.session === null || !retain.sessions.has(row.session);
    if (retain.receipts.has(row.id)) return false;
    const from = row.check_id === null ? void 0 : retain.fromSeq.get(row.check_id);
    return from === void 0 || row.seq < from;
  });
  const bound = policy.maxRemove ?? Number.MAX_SAFE_INTEGER;
  const doomed = kept.slice(0, Math.max(0, bound));
  return { doomed, retained: selected.length - kept.length, deferred: kept.length - doomed.length };
}
function keptCounts(retained, deferred) {
  return { ...retained > 0 && { retained }, ...deferred > 0 && { deferred } };
}
function plannedResult(doomed, retained) {
  return {
    removed: doomed.length,
    trailRemoved: doomed.filter((row) => row.kind === "trail").length,
    manifestsRemoved: 0,
    gcEntryId: null,
    retained,
    planned: doomed.map(({ seq, id, kind, check_id, session }) => ({ seq, id, kind, check_id, session }))
  };
}

// src/ledger/sqlite/body-store.ts
var import_node_zlib = require("node:zlib");
var REFRESH_RATIO = 0.5;
var REFRESH_AFTER = 32;
var BodyStore = class {
  bytes = /* @__PURE__ */ new Map();
  current;
  create;
  load;
  constructor(db) {
    this.current = db.prepare("SELECT id, since_seq AS since FROM dicts WHERE check_id = ? ORDER BY id DESC LIMIT 1");
    this.create = db.prepare("INSERT INTO dicts (check_id, since_seq, body) VALUES (?, ?, ?)");
    this.load = db.prepare("SELECT body FROM dicts WHERE id = ?").pluck();
  }
  /**
   * Encodes the body of entry `seq` of a check. Runs inside the append
   * transaction: the dictionary is looked up there, never taken from a
   * memory of an earlier transaction (gc may have removed it since).
   */
  encode(checkId, text, seq) {
    const raw = Buffer.from(text, "utf8");
    const current = this.current.get(checkId);
    let dict = current?.id;
    let encoded = current ? this.deflate(raw, current.id) : void 0;
    if (!current || encoded !== void 0 && encoded.length > raw.length * REFRESH_RATIO && seq - current.since >= REFRESH_AFTER) {
      dict = Number(this.create.run(checkId, seq, raw).lastInsertRowid);
      this.bytes.set(dict, raw);
      encoded = this.deflate(raw, dict);
    }
    if (dict === void 0 || encoded === void 0 || encoded.length >= raw.length) return { body: text, dict: null };
    return { body: encoded, dict };
  }
  /** The canonical text of a stored body, or undefined when it cannot be decoded (damage). */
  decode(stored) {
    if (stored.dict === null) return typeof stored.body === "string" ? stored.body : void 0;
    const dictionary = this.dictionary(stored.dict);
    if (!dictionary || !Buffer.isBuffer(stored.body)) return void 0;
    try {
      return (0, import_node_zlib.inflateRawSync)(stored.body, { dictionary }).toString("utf8");
    } catch {
      return void 0;
    }
  }
  deflate(raw, dict) {
    const dictionary = this.dictionary(dict);
    return dictionary && (0, import_node_zlib.deflateRawSync)(raw, { dictionary });
  }
  dictionary(id) {
    let bytes2 = this.bytes.get(id);
    if (!bytes2) {
      const row = this.load.get(id);
      if (!Buffer.isBuffer(row)) return void 0;
      bytes2 = row;
      this.bytes.set(id, bytes2);
    }
    return bytes2;
  }
};

// src/ledger/sqlite/driver.ts
var import_node_fs2 = require("node:fs");
var import_node_module3 = require("node:module");
var import_node_path = require("node:path");
var import_node_url2 = require("node:url");

// src/core/start.ts
var parts = /* @__PURE__ */ new Set();
function noteLoaded(part) {
  parts.add(part);
}

// src/ledger/sqlite/driver.ts
var import_meta3 = {};
var load2 = (0, import_node_module3.createRequire)(import_meta3.url);
var driver;
function sqlite() {
  if (driver) return driver;
  noteLoaded("sqlite");
  const addon = builtAddon();
  if (addon === void 0) return driver = { Database: load2("better-sqlite3"), options: {} };
  const Bundled = typeof require === "function" ? require("better-sqlite3") : load2("better-sqlite3");
  return driver = { Database: Bundled, options: { nativeBinding: addon } };
}
var ADDON2 = "better-sqlite3/build/Release/better_sqlite3.node";
var OWN = ["../node_modules/", "../../node_modules/", "../../../node_modules/"];
function builtAddon() {
  for (const dir of OWN) {
    const file = (0, import_node_url2.fileURLToPath)(new URL(dir + ADDON2, import_meta3.url));
    if ((0, import_node_fs2.existsSync)(file)) return file;
  }
  try {
    const file = (0, import_node_path.join)((0, import_node_path.dirname)(load2.resolve("better-sqlite3/package.json")), "build", "Release", "better_sqlite3.node");
    return (0, import_node_fs2.existsSync)(file) ? file : void 0;
  } catch {
    return void 0;
  }
}

// src/ledger/sqlite/schema.ts
var LEDGER_FORMAT = "vouch-ledger";
var MIGRATIONS = [
  // 1: the chain of entries (receipts and gc records), manifests by digest,
  // and the hashes of entries removed by gc so the chain still links.
  `
  CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
  CREATE TABLE chain (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    kind TEXT NOT NULL,
    check_id TEXT,
    manifest TEXT,
    created_at INTEGER NOT NULL,
    hash TEXT NOT NULL,
    body TEXT NOT NULL,
    signature TEXT
  );
  CREATE INDEX chain_by_check ON chain (check_id, seq) WHERE kind = 'receipt';
  CREATE TABLE manifests (digest TEXT PRIMARY KEY, body BLOB NOT NULL) WITHOUT ROWID;
  CREATE TABLE pruned (seq INTEGER PRIMARY KEY, id TEXT NOT NULL, hash TEXT NOT NULL, gc_id TEXT NOT NULL);
  `,
  // 2: session entries (an agent's untrusted trail, the gate's decisions) are
  // chain entries too; this column finds one session's entries without
  // reading every body.
  `
  ALTER TABLE chain ADD COLUMN session TEXT;
  CREATE INDEX chain_by_session ON chain (session, seq) WHERE session IS NOT NULL;
  `,
  // 3: events about a subject (a task card, a dispatched agent) are chain
  // entries too; this column finds one subject's events without reading
  // every body.
  `
  ALTER TABLE chain ADD COLUMN subject TEXT;
  CREATE INDEX chain_by_subject ON chain (kind, subject, seq) WHERE subject IS NOT NULL;
  `,
  // 4: compact bodies (body-store.ts). A chain row's body is either its
  // canonical text (dict NULL: every row written before this schema, and
  // every gc record, session entry and subject event) or, for a receipt,
  // that text DEFLATE-compressed against a dictionary: the full text of an
  // earlier receipt of the same check. AUTOINCREMENT: a dictionary id is never
  // reused, so an id remembered by another connection never names other bytes.
  `
  CREATE TABLE dicts (id INTEGER PRIMARY KEY AUTOINCREMENT, check_id TEXT NOT NULL, since_seq INTEGER NOT NULL, body BLOB NOT NULL);
  CREATE INDEX dicts_by_check ON dicts (check_id, id);
  ALTER TABLE chain ADD COLUMN dict INTEGER;
  `,
  // 5: proven states (engine/reuse.ts): a PASS receipt's fingerprint, so an
  // earlier PASS of the same files, definition and pins is found by one
  // index probe, never by reading receipts. Receipts written before this
  // have none and are never reused.
  `
  ALTER TABLE chain ADD COLUMN pass_fingerprint TEXT;
  CREATE INDEX chain_by_pass ON chain (check_id, pass_fingerprint, seq) WHERE pass_fingerprint IS NOT NULL;
  `
];

// src/ledger/chain.ts
var import_node_zlib2 = require("node:zlib");
function link(draft, prev, sign) {
  const body = { ...draft, prev_hash: prev };
  const text = canonicalize(body);
  return { body, text, hash: sha256(text), signature: sign ? sign(text) : null };
}
function encodeManifest(manifest) {
  return (0, import_node_zlib2.deflateRawSync)(canonicalize({ files: manifest.files, refused: manifest.refused }));
}
function decodeManifest(blob) {
  try {
    return JSON.parse((0, import_node_zlib2.inflateRawSync)(blob).toString("utf8"));
  } catch {
    return void 0;
  }
}
function intact(text, hash, body, id) {
  return sha256(text) === hash && body.id === id;
}
function parseBody(text) {
  if (text === void 0) return void 0;
  try {
    return JSON.parse(text);
  } catch {
    return void 0;
  }
}
function readEvent(row, text, kind) {
  const body = parseBody(text);
  const ok = body !== void 0 && intact(text, row.hash, body, row.id) && body.kind === kind && body.subject === row.subject;
  return {
    seq: row.seq,
    hash: row.hash,
    body: body ?? { v: 1, kind, id: row.id, at: "", subject: row.subject, event: "damaged" },
    signature: row.signature,
    intact: ok
  };
}

// src/ledger/sqlite/sqlite-ledger.ts
var ENTRY_COLUMNS = "seq, id, hash, body, dict, signature";
var BUSY_TIMEOUT_MS = 3e4;
function openSqliteLedger(path2, options) {
  if (!options.create && !(0, import_node_fs3.existsSync)(path2)) return void 0;
  if (options.create && !readOnlyHere(path2)) prepareStateDir((0, import_node_path2.dirname)(path2));
  let db;
  try {
    const { Database: Driver, options: binding } = sqlite();
    db = new Driver(path2, { ...binding, fileMustExist: !options.create, timeout: BUSY_TIMEOUT_MS });
    db.pragma("journal_mode = WAL");
  } catch (error) {
    db?.close();
    if (!readOnlyHere(path2)) throw translate(error, path2);
    if (options.create) throw new LedgerError("read_only", READ_ONLY_HERE, path2, { cause: error });
    return readOnlyCopy(path2);
  }
  try {
    db.pragma("synchronous = NORMAL");
    db.pragma("foreign_keys = ON");
    migrate(db, path2);
  } catch (error) {
    db.close();
    throw translate(error, path2);
  }
  return new SqliteLedger(db, path2);
}
var READ_ONLY_HERE = "the ledger's folder is read-only here: inside the agent's box (Claude Code's sandbox) .vouch/ is read-only on purpose, so nothing an agent's command runs is recorded. Stop when the work is done: the gate runs the checks itself (or use the MCP tool vouch_verify, which runs outside the box)";
function readOnlyHere(path2) {
  try {
    (0, import_node_fs3.accessSync)((0, import_node_path2.dirname)(path2), import_node_fs3.constants.W_OK);
    return false;
  } catch (error) {
    return error.code === "EROFS";
  }
}
function readOnlyCopy(path2) {
  const { Database: Driver, options: binding } = sqlite();
  let db;
  try {
    db = pendingLog(path2) ? new Driver(path2, { ...binding, readonly: true, fileMustExist: true }) : new Driver(rollbackImage((0, import_node_fs3.readFileSync)(path2)), binding);
    db.pragma("query_only = ON");
    db.prepare("SELECT value FROM meta WHERE key = 'schema_version'").get();
  } catch (error) {
    throw translate(error, path2);
  }
  return new SqliteLedger(db, path2);
}
function rollbackImage(bytes2) {
  if (bytes2.length >= 100 && bytes2[18] === 2 && bytes2[19] === 2) {
    bytes2[18] = 1;
    bytes2[19] = 1;
  }
  return bytes2;
}
function pendingLog(path2) {
  try {
    return (0, import_node_fs3.statSync)(`${path2}-wal`).size > 0;
  } catch {
    return false;
  }
}
function prepareStateDir(dir) {
  (0, import_node_fs3.mkdirSync)(dir, { recursive: true });
  const ignore = (0, import_node_path2.join)(dir, ".gitignore");
  if (!(0, import_node_fs3.existsSync)(ignore)) (0, import_node_fs3.writeFileSync)(ignore, "# vouch state: local receipts, never committed\n*\n");
}
function migrate(db, path2) {
  const hasMeta = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'").get() !== void 0;
  const tables = db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table'").get().n;
  if (!hasMeta && tables > 0) throw new LedgerError("corrupt", "the file is an SQLite database but not a vouch ledger", path2);
  const run = db.transaction(() => {
    db.exec("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID");
    const format = db.prepare("SELECT value FROM meta WHERE key = 'format'").get();
    if (format && format.value !== LEDGER_FORMAT) throw new LedgerError("corrupt", `unexpected ledger format "${format.value}"`, path2);
    const row = db.prepare("SELECT value FROM meta WHERE key = 'schema_version'").get();
    const version = row ? Number(row.value) : 0;
    if (!Number.isInteger(version) || version < 0) throw new LedgerError("corrupt", `unreadable schema version "${row?.value}"`, path2);
    if (version > MIGRATIONS.length) {
      throw new LedgerError("too_new", `ledger schema ${version} is newer than this vouch understands (${MIGRATIONS.length})`, path2);
    }
    for (let next = version; next < MIGRATIONS.length; next++) db.exec(MIGRATIONS[next]);
    db.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES ('format', ?), ('schema_version', ?)").run(LEDGER_FORMAT, String(MIGRATIONS.length));
  });
  if (hasMeta) {
    const current = db.prepare("SELECT value FROM meta WHERE key = 'schema_version'").pluck().get();
    if (Number(current ?? 0) === MIGRATIONS.length) return;
  }
  run.immediate();
}
function checkedDigest(draft, manifest) {
  const digest = manifestDigest(manifest);
  if (digest !== draft.manifest_digest) throw new Error("bug: receipt manifest_digest does not match its manifest");
  return digest;
}
function translate(error, path2) {
  if (error instanceof LedgerError) return error;
  const code = error.code ?? "";
  if (code.startsWith("SQLITE_CORRUPT") || code === "SQLITE_NOTADB") {
    return new LedgerError("corrupt", `the ledger is damaged (${code})`, path2, { cause: error });
  }
  if (code.startsWith("SQLITE_")) {
    return new LedgerError("unreadable", `the ledger cannot be used (${code}: ${error.message})`, path2, { cause: error });
  }
  return error;
}
var GC_SELECTION = `SELECT seq, id, hash, kind, check_id, session FROM (
    SELECT seq, id, hash, kind, check_id, session, created_at,
           ROW_NUMBER() OVER (PARTITION BY check_id ORDER BY seq DESC) AS rank
    FROM chain WHERE kind = 'receipt')
  WHERE rank > 1 AND (rank > ? OR created_at < ?)
  UNION ALL
  SELECT seq, id, hash, kind, check_id, session FROM chain WHERE kind = 'trail' AND created_at < ?`;
var SqliteLedger = class {
  constructor(db, path2) {
    this.db = db;
    this.path = path2;
    this.bodies = new BodyStore(db);
  }
  db;
  path;
  bodies;
  heads;
  guard(work) {
    try {
      return Promise.resolve(work());
    } catch (error) {
      if (error instanceof EventConflict) return Promise.reject(error);
      const translated = translate(error, this.path);
      return Promise.reject(translated instanceof Error ? translated : new Error(String(translated)));
    }
  }
  /**
   * The chain's head: the entry of the highest seq, live or pruned. gc may
   * prune the newest entries (old trail at the end of the chain), and the
   * next entry must still follow them: it takes the next seq (a seq is
   * never given twice: the pruned trace keeps it) and links to the hash of
   * the entry just before it, pruned or not, which is what `vouch audit`
   * follows. Without this, SQLite hands a pruned tail's seq out again
   * (INTEGER PRIMARY KEY reuses the largest rowid + 1).
   */
  head() {
    this.heads ??= {
      live: this.db.prepare("SELECT seq, hash FROM chain ORDER BY seq DESC LIMIT 1"),
      pruned: this.db.prepare("SELECT seq, hash FROM pruned ORDER BY seq DESC LIMIT 1")
    };
    const live = this.heads.live.get();
    const pruned = this.heads.pruned.get();
    const newest = (pruned?.seq ?? 0) > (live?.seq ?? 0) ? pruned : live;
    return { seq: newest?.seq ?? 0, hash: newest?.hash ?? null };
  }
  appendReceipt(draft, manifest, options = {}) {
    return this.appendReceipts([{ draft, manifest }], options).then((stored) => stored[0]);
  }
  /**
   * Appends receipts in order, in one transaction: all of them or none,
   * each chained to the entry before it (and signed, with `options.sign`).
   * `appendReceipt` is this with one item; a batch only saves the
   * per-transaction cost (the benchmark writes a million receipts this way).
   */
  appendReceipts(items, options = {}) {
    return this.guard(() => {
      const digests = items.map(({ draft, manifest }) => typeof manifest === "function" ? draft.manifest_digest : checkedDigest(draft, manifest));
      const hasManifest = this.db.prepare("SELECT 1 FROM manifests WHERE digest = ?").pluck();
      const insertManifest = this.db.prepare("INSERT OR IGNORE INTO manifests (digest, body) VALUES (?, ?)");
      const insert = this.db.prepare(
        "INSERT INTO chain (seq, id, kind, check_id, manifest, created_at, hash, body, dict, signature, pass_fingerprint) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
      );
      const append = this.db.transaction(() => {
        let { seq, hash: prev } = this.head();
        const stored = [];
        items.forEach(({ draft, manifest }, i) => {
          const digest = digests[i];
          const { body, text, hash, signature } = link(draft, prev, options.sign);
          if (hasManifest.get(digest) === void 0) {
            const built = manifestFrom(manifest);
            if (typeof manifest === "function") checkedDigest(draft, built);
            insertManifest.run(digest, encodeManifest(built));
          }
          seq += 1;
          const compact = this.bodies.encode(body.check_id, text, seq);
          insert.run(seq, body.id, "receipt", body.check_id, digest, Date.parse(body.finished_at), hash, compact.body, compact.dict, signature, body.verdict === "PASS" ? body.fingerprint : null);
          prev = hash;
          stored.push({ seq, hash, body, intact: true, signature });
        });
        return stored;
      });
      return append.immediate();
    });
  }
  passesOf(checkId, fingerprint, limit) {
    return this.guard(() => {
      const rows = this.db.prepare(`SELECT ${ENTRY_COLUMNS} FROM chain WHERE check_id = ? AND pass_fingerprint = ? ORDER BY seq DESC LIMIT ?`).all(checkId, fingerprint, limit);
      return rows.map((row) => this.decode(row));
    });
  }
  latestReceipts(checkIds) {
    return this.guard(() => {
      const query = this.db.prepare(
        `SELECT ${ENTRY_COLUMNS} FROM chain WHERE kind = 'receipt' AND check_id = ? ORDER BY seq DESC LIMIT 1`
      );
      const result = /* @__PURE__ */ new Map();
      for (const id of checkIds) {
        const row = query.get(id);
        if (row) result.set(id, this.decode(row));
      }
      return result;
    });
  }
  findReceipt(idOrPrefix) {
    return this.guard(() => {
      const key = idOrPrefix.toLowerCase();
      const rows = this.db.prepare(`SELECT ${ENTRY_COLUMNS} FROM chain WHERE kind = 'receipt' AND id >= ? AND id < ? ORDER BY id LIMIT 5`).all(key, `${key}\u{10FFFF}`);
      const bySuffix = key.length < ID_LENGTH ? this.db.prepare(`SELECT ${ENTRY_COLUMNS} FROM chain WHERE kind = 'receipt' AND substr(id, ?) = ? ORDER BY id LIMIT 5`).all(ID_LENGTH + 1 - key.length, key) : [];
      return pickReceipt(key, [...rows, ...bySuffix], (row) => this.decode(row));
    });
  }
  listReceipts(query) {
    return this.guard(() => {
      const where = ["kind = 'receipt'"];
      const params = [];
      if (query.checkId !== void 0) {
        where.push("check_id = ?");
        params.push(query.checkId);
      }
      if (query.since !== void 0) {
        where.push("created_at >= ?");
        params.push(query.since.getTime());
      }
      if (query.afterSeq !== void 0) {
        where.push("seq > ?");
        params.push(query.afterSeq);
      }
      const rows = this.db.prepare(`SELECT ${ENTRY_COLUMNS} FROM chain WHERE ${where.join(" AND ")} ORDER BY seq DESC LIMIT ?`).all(...params, query.limit);
      return rows.map((row) => this.decode(row));
    });
  }
  getManifest(digest) {
    return this.guard(() => {
      const row = this.db.prepare("SELECT body FROM manifests WHERE digest = ?").pluck().get(digest);
      if (!row) return void 0;
      const manifest = decodeManifest(row);
      if (!manifest || manifestDigest(manifest) !== digest) return void 0;
      return manifest;
    });
  }
  gc(policy) {
    return this.guard(() => {
      const run = this.db.transaction(() => {
        const keepPerCheck = Math.max(1, policy.keepPerCheck ?? Number.MAX_SAFE_INTEGER);
        const cutoff = policy.keepDays === void 0 ? Number.MAX_SAFE_INTEGER : policy.now.getTime() - policy.keepDays * 864e5;
        if (policy.keepDays === void 0 && policy.keepPerCheck === void 0) {
          return NOTHING_REMOVED;
        }
        const age = policy.keepDays === void 0 ? -1 : cutoff;
        const selected = this.db.prepare(`${GC_SELECTION} ORDER BY seq`).all(keepPerCheck, age, age);
        const { doomed, retained, deferred } = applyRetention(selected, policy);
        if (policy.dryRun) return { ...plannedResult(doomed, retained), ...keptCounts(0, deferred) };
        if (doomed.length === 0) return { ...NOTHING_REMOVED, ...keptCounts(retained, deferred) };
        const gcId = newId(policy.now.getTime());
        const bodyAt = this.db.prepare(`SELECT ${ENTRY_COLUMNS} FROM chain WHERE seq = ?`);
        const logs = releasedLogs(doomed.filter((row) => row.kind === "receipt").map((row) => this.decode(bodyAt.get(row.seq))));
        const keep = this.db.prepare("INSERT INTO pruned (seq, id, hash, gc_id) VALUES (?, ?, ?, ?)");
        const drop = this.db.prepare("DELETE FROM chain WHERE seq = ?");
        for (const row of doomed) {
          keep.run(row.seq, row.id, row.hash, gcId);
          drop.run(row.seq);
        }
        const manifestsRemoved = this.db.prepare("DELETE FROM manifests WHERE digest NOT IN (SELECT manifest FROM chain WHERE manifest IS NOT NULL)").run().changes;
        this.db.prepare(
          "DELETE FROM dicts WHERE id NOT IN (SELECT dict FROM chain WHERE dict IS NOT NULL) AND id NOT IN (SELECT max(id) FROM dicts GROUP BY check_id)"
        ).run();
        const head = this.head();
        const gc = link(gcRecord(gcId, policy, doomed), head.hash, policy.sign);
        this.db.prepare("INSERT INTO chain (seq, id, kind, check_id, manifest, created_at, hash, body, signature) VALUES (?, ?, ?, NULL, NULL, ?, ?, ?, ?)").run(head.seq + 1, gcId, "gc", policy.now.getTime(), gc.hash, gc.text, gc.signature);
        return { removed: doomed.length, trailRemoved: doomed.filter((row) => row.kind === "trail").length, manifestsRemoved, gcEntryId: gcId, retained, ...keptCounts(0, deferred), ...logs };
      });
      return run.immediate();
    });
  }
  gcCandidates(policy, atMost) {
    if (policy.keepDays === void 0 && policy.keepPerCheck === void 0) return Promise.resolve(0);
    return this.guard(() => {
      const keepPerCheck = Math.max(1, policy.keepPerCheck ?? Number.MAX_SAFE_INTEGER);
      const age = policy.keepDays === void 0 ? -1 : policy.now.getTime() - policy.keepDays * 864e5;
      return this.db.prepare(`SELECT count(*) FROM (${GC_SELECTION} LIMIT ?)`).pluck().get(keepPerCheck, age, age, atMost);
    });
  }
  appendSessionEntry(draft, options = {}) {
    return this.guard(() => {
      const insert = this.db.prepare(
        "INSERT INTO chain (seq, id, kind, check_id, manifest, created_at, hash, body, session, signature) VALUES (?, ?, ?, NULL, NULL, ?, ?, ?, ?, ?)"
      );
      const append = this.db.transaction(() => {
        const head = this.head();
        const { text, hash, signature } = link(draft, head.hash, options.sign);
        insert.run(head.seq + 1, draft.id, draft.kind, Date.parse(draft.at), hash, text, draft.session, signature);
        return { seq: head.seq + 1, hash, body: draft, intact: true };
      });
      return append.immediate();
    });
  }
  sessionEntries(session) {
    return this.guard(() => {
      const rows = this.db.prepare(`SELECT ${ENTRY_COLUMNS} FROM chain WHERE session = ? ORDER BY seq`).all(session);
      return rows.flatMap((row) => {
        const text = this.bodies.decode(row);
        const body = parseBody(text);
        if (body === void 0) return [];
        return [{ seq: row.seq, hash: row.hash, body, intact: intact(text, row.hash, body, row.id) }];
      });
    });
  }
  appendEvent(draft, options = {}) {
    return this.guard(() => {
      const newest = this.db.prepare("SELECT id FROM chain WHERE kind = ? AND subject = ? ORDER BY seq DESC LIMIT 1").pluck();
      const insert = this.db.prepare(
        "INSERT INTO chain (seq, id, kind, check_id, manifest, created_at, hash, body, subject, signature) VALUES (?, ?, ?, NULL, NULL, ?, ?, ?, ?, ?)"
      );
      const append = this.db.transaction(() => {
        if (options.after !== void 0) {
          const latest = newest.get(draft.kind, draft.subject) ?? null;
          if (latest !== options.after) throw new EventConflict(draft.subject, latest);
        }
        const head = this.head();
        const { text, hash, signature } = link(draft, head.hash, options.sign);
        insert.run(head.seq + 1, draft.id, draft.kind, Date.parse(draft.at), hash, text, draft.subject, signature);
        return { seq: head.seq + 1, hash, body: draft, signature, intact: true };
      });
      return append.immediate();
    });
  }
  events(kind, subject) {
    return this.guard(() => {
      const rows = this.db.prepare(`SELECT ${ENTRY_COLUMNS}, subject FROM chain WHERE kind = ? AND subject = ? ORDER BY seq`).all(kind, subject);
      return rows.map((row) => this.decodeEvent(row, kind));
    });
  }
  latestEvents(kind, limit) {
    return this.guard(() => {
      const rows = this.db.prepare(
        `SELECT c.seq, c.id, c.hash, c.body, c.dict, c.signature, c.subject FROM chain c
           JOIN (SELECT MAX(seq) AS seq FROM chain WHERE kind = ? AND subject IS NOT NULL GROUP BY subject) newest ON c.seq = newest.seq
           ORDER BY c.seq DESC LIMIT ?`
      ).all(kind, limit);
      return rows.map((row) => this.decodeEvent(row, kind));
    });
  }
  subjects(kind, limit) {
    return this.guard(
      () => this.db.prepare("SELECT subject FROM chain WHERE kind = ? AND subject IS NOT NULL GROUP BY subject ORDER BY MAX(seq) DESC LIMIT ?").pluck().all(kind, limit)
    );
  }
  recentSessions(limit) {
    return this.guard(
      () => this.db.prepare("SELECT session FROM chain WHERE session IS NOT NULL GROUP BY session ORDER BY MAX(seq) DESC LIMIT ?").pluck().all(limit)
    );
  }
  entriesSince(since, kinds) {
    return this.guard(() => {
      const floor = since.getTime() - RECENT_SLACK_MS;
      const wanted = kinds.map(() => "?").join(", ");
      const rows = this.db.prepare(`SELECT seq, kind, created_at, CASE WHEN kind IN (${wanted}) THEN body END AS body, CASE WHEN kind IN (${wanted}) THEN dict END AS dict FROM chain ORDER BY seq DESC`).iterate(...kinds, ...kinds);
      const found = [];
      for (const row of rows) {
        if (row.created_at < floor) break;
        if (row.body === null || row.created_at < since.getTime()) continue;
        found.push({ seq: row.seq, kind: row.kind, createdAt: row.created_at, body: parseRecentBody(this.bodies.decode({ body: row.body, dict: row.dict })) });
      }
      return found.reverse();
    });
  }
  stats() {
    return this.guard(() => {
      const receipts = this.db.prepare("SELECT count(*) FROM chain WHERE kind = 'receipt'").pluck().get();
      const manifests = this.db.prepare("SELECT count(*) FROM manifests").pluck().get();
      const pages = this.db.pragma("page_count", { simple: true });
      const pageSize = this.db.pragma("page_size", { simple: true });
      return { receipts, manifests, bytes: pages * pageSize };
    });
  }
  async *entries() {
    let rows;
    try {
      rows = this.db.prepare(
        `SELECT 'live' AS state, seq, id, kind, check_id, manifest, hash, body, dict, signature, NULL AS gc_id, subject FROM chain
           UNION ALL
           SELECT 'pruned' AS state, seq, id, NULL, NULL, NULL, hash, NULL, NULL, NULL, gc_id, NULL FROM pruned
           ORDER BY seq, state`
      ).iterate();
    } catch (error) {
      throw translate(error, this.path);
    }
    try {
      for (; ; ) {
        let next;
        try {
          next = rows.next();
        } catch (error) {
          throw translate(error, this.path);
        }
        if (next.done) return;
        yield this.toEntry(next.value);
      }
    } finally {
      rows.return?.();
    }
  }
  /** An entry as stored, its body decoded to the exact canonical text that was hashed (and signed). */
  toEntry(row) {
    if (row.state === "pruned") return { state: "pruned", seq: row.seq, id: row.id, hash: row.hash, gcId: row.gc_id ?? "" };
    return {
      state: "live",
      seq: row.seq,
      id: row.id,
      kind: row.kind ?? "",
      checkId: row.check_id,
      manifest: row.manifest,
      hash: row.hash,
      // A body that cannot be decoded (a damaged dictionary or blob) is no
      // text at all: it cannot hash to the chain's hash, and audit says so.
      body: this.bodies.decode(row) ?? "",
      signature: row.signature,
      subject: row.subject
    };
  }
  /** An event as stored: decoded, and believed only when its bytes still hash to its hash and its row agrees with it. */
  decodeEvent(row, kind) {
    return readEvent(row, this.bodies.decode(row), kind);
  }
  decode(row) {
    const damaged = { seq: row.seq, hash: row.hash, body: { id: row.id }, intact: false, signature: row.signature };
    const text = this.bodies.decode(row);
    const body = parseBody(text);
    if (body === void 0) return damaged;
    return { seq: row.seq, hash: row.hash, body, intact: intact(text, row.hash, body, row.id), signature: row.signature };
  }
  close() {
    this.db.close();
    return Promise.resolve();
  }
};

// src/cache/scope-record.ts
var MAGIC = Buffer.from("VOUCHRS", "latin1");

// src/engine/fingerprint.ts
function fingerprintDigest(definition, manifest) {
  return digestJson({ v: 1, definition, manifest });
}

// test/helpers/drafts.ts
function manifestOf(seed) {
  return { files: [[`src/${seed}.ts`, sha256(seed), seed.length, "source"]], refused: [] };
}
function draftOf(checkId, manifest, at = /* @__PURE__ */ new Date(), verdict = "PASS") {
  const definition = sha256(`definition of ${checkId}`);
  const digest = manifestDigest(manifest);
  return {
    v: 1,
    kind: "receipt",
    id: newId(at.getTime()),
    check_id: checkId,
    definition_digest: definition,
    spec_sha256: sha256("spec"),
    argv: ["true"],
    shell: false,
    cwd: ".",
    timeout_s: 120,
    env_names: ["PATH"],
    executable: "/usr/bin/true",
    ran: true,
    started_at: at.toISOString(),
    finished_at: at.toISOString(),
    duration_ms: 1,
    exit_code: verdict === "PASS" ? 0 : 1,
    signal: null,
    timed_out: false,
    stdout: null,
    stderr: null,
    manifest_digest: digest,
    file_count: manifest.files.length,
    fingerprint: fingerprintDigest(definition, digest),
    verdict,
    reason: verdict === "PASS" ? "ok" : "exit_code",
    detail: null,
    proves: "it ran",
    engine: { name: "vouch", version: "test" },
    platform: { os: "linux", arch: "x64", node: "v20" },
    git: null,
    actor: "cli"
  };
}

// ../../../tmp/ret-bench/probe.ts
var path = process.argv[2];
var count = Number(process.argv[3]);
var ledger = openSqliteLedger(path, { create: true });
var m = manifestOf("x");
async function main() {
  if (count > 0) {
    for (let done = 0; done < count; done += 5e3) {
      const items = [];
      for (let i = 0; i < 5e3; i++) items.push({ draft: draftOf(`c${i % 4}`, m, new Date(Date.now() - (count - done - i) * 1e3)), manifest: m });
      await ledger.appendReceipts(items);
    }
  }
  for (let r = 0; r < 5; r++) {
    const t = performance.now();
    const n = await ledger.gcCandidates({ now: /* @__PURE__ */ new Date(), keepDays: 30, keepPerCheck: 200 }, 100);
    console.log("gcCandidates", n, (performance.now() - t).toFixed(1), "ms");
  }
  await ledger.close();
}
main();
