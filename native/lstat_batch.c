// vouch's native stat path (src/scope/stat-batch.ts): lstat a batch of
// workspace-relative paths on two threads and write packed results into
// typed arrays the caller owns. Node-API only, so one build serves every
// Node version from 20 on. A pure-JavaScript fallback gives the same
// answers (stat-batch.test.ts runs both on one tree); this exists because
// Node's lstat builds an object of BigInts and Dates per call, which costs
// more than the system call on a warm tree.
#define NAPI_VERSION 8
#include <node_api.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "digest.h"

// Words per entry, as in src/cache/stat-key.ts: dev, ino, mode, size, mtime
// and ctime in nanoseconds.
#define WORDS 6
// Paths claimed at a time from the shared counter.
#define CLAIM 256

// No earlier entry names the same path.
#define FIRST UINT32_MAX

// One part of a batch: a text of NUL-terminated paths and where each starts.
typedef struct {
  const char *text;
  size_t text_len;
  const uint32_t *starts;
  uint32_t first; // the batch entry of its first start
  uint32_t count;
} part_t;

typedef struct {
  int root;
  const part_t *parts;
  uint32_t nparts;
  uint32_t count;
  int64_t *out;
  int32_t *errs;
  // same[i]: the earlier entry with the same path, or FIRST; NULL: none known.
  const uint32_t *same;
  uint32_t next; // claimed with __atomic_fetch_add
} batch_t;

// The path of entry i and its length, or NULL when its start is out of the
// text or it has no NUL (stat_one answers EINVAL for those).
static const char *path_of(const batch_t *b, uint32_t i, size_t *len) {
  // The part holding entry i: the last whose first entry is at most i.
  uint32_t lo = 0, hi = b->nparts - 1;
  while (lo < hi) {
    uint32_t mid = (lo + hi + 1) / 2;
    if (b->parts[mid].first <= i) lo = mid;
    else hi = mid - 1;
  }
  const part_t *p = &b->parts[lo];
  uint32_t start = p->starts[i - p->first];
  if (start >= p->text_len) return NULL;
  const char *end = memchr(p->text + start, 0, p->text_len - start);
  if (end == NULL) return NULL;
  *len = (size_t)(end - (p->text + start));
  return p->text + start;
}

static uint64_t hash_of(const char *p, size_t len) {
  uint64_t h = 0x9e3779b97f4a7c15ull ^ len;
  size_t i = 0;
  for (; i + 8 <= len; i += 8) {
    uint64_t w;
    memcpy(&w, p + i, 8);
    h = (h ^ w) * 0xff51afd7ed558ccdull;
    h ^= h >> 32;
  }
  for (; i < len; i++) h = (h ^ (uint8_t)p[i]) * 0x100000001b3ull;
  h ^= h >> 29;
  return h * 0xc4ceb9fe1a85ec53ull;
}

// Marks every entry whose path an earlier entry already names (overlapping
// scopes share most of their entries), so that each path is lstat'ed once.
// Counts in *distinct the paths that will be lstat'ed (valid, named first).
// Returns NULL when there is no memory for the table: then every valid
// entry is lstat'ed, as before.
static uint32_t *find_same(const batch_t *b, uint32_t *distinct) {
  *distinct = 0;
  size_t slots = 16;
  while (slots < (size_t)b->count * 2) slots <<= 1;
  uint32_t *table = malloc(slots * sizeof(uint32_t));
  uint32_t *same = malloc((size_t)b->count * sizeof(uint32_t) + 1);
  if (table == NULL || same == NULL) {
    free(table);
    free(same);
    size_t len;
    for (uint32_t i = 0; i < b->count; i++)
      if (path_of(b, i, &len) != NULL) (*distinct)++;
    return NULL;
  }
  memset(table, 0xff, slots * sizeof(uint32_t));
  for (uint32_t i = 0; i < b->count; i++) {
    same[i] = FIRST;
    size_t len;
    const char *path = path_of(b, i, &len);
    if (path == NULL) continue;
    for (size_t slot = hash_of(path, len) & (slots - 1);; slot = (slot + 1) & (slots - 1)) {
      uint32_t j = table[slot];
      if (j == FIRST) {
        table[slot] = i;
        (*distinct)++;
        break;
      }
      size_t other_len;
      const char *other = path_of(b, j, &other_len);
      if (other_len == len && memcmp(other, path, len) == 0) {
        same[i] = j;
        break;
      }
    }
  }
  free(table);
  return same;
}

static void stat_one(batch_t *b, uint32_t i) {
  int64_t *words = b->out + (size_t)i * WORDS;
  size_t len;
  const char *path = path_of(b, i, &len);
  // A start past the text, or a path without its NUL, is a caller's bug:
  // answered as EINVAL, never read out of bounds.
  if (path == NULL) {
    memset(words, 0, sizeof(int64_t) * WORDS);
    b->errs[i] = EINVAL;
    return;
  }
  struct stat st;
  // The root itself is named by the empty path.
  int rc = path[0] == 0 ? fstat(b->root, &st) : fstatat(b->root, path, &st, AT_SYMLINK_NOFOLLOW);
  if (rc != 0) {
    memset(words, 0, sizeof(int64_t) * WORDS);
    b->errs[i] = errno;
    return;
  }
  words[0] = (int64_t)st.st_dev;
  words[1] = (int64_t)st.st_ino;
  words[2] = (int64_t)st.st_mode;
  words[3] = (int64_t)st.st_size;
  words[4] = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
  words[5] = (int64_t)st.st_ctim.tv_sec * 1000000000 + st.st_ctim.tv_nsec;
  b->errs[i] = 0;
}

static void *work(void *arg) {
  batch_t *b = (batch_t *)arg;
  for (;;) {
    uint32_t from = __atomic_fetch_add(&b->next, CLAIM, __ATOMIC_RELAXED);
    if (from >= b->count) break;
    uint32_t to = from + CLAIM < b->count ? from + CLAIM : b->count;
    for (uint32_t i = from; i < to; i++)
      if (b->same == NULL || b->same[i] == FIRST) stat_one(b, i);
  }
  return NULL;
}

static napi_value fail(napi_env env, const char *message) {
  napi_throw_type_error(env, NULL, message);
  return NULL;
}

// lstatBatch(root: string, texts: Buffer[], starts: Uint32Array[],
//            out: BigInt64Array (6 words per start), errs: Int32Array): number
// texts[k] and starts[k] are one part (a scope record's paths); the entries
// of all parts, in order, are the batch. Returns how many lstat calls it
// made: a path named twice, in one part or in two, is lstat'ed once.
static napi_value lstat_batch(napi_env env, napi_callback_info info) {
  size_t argc = 5;
  napi_value argv[5];
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc != 5) return fail(env, "lstatBatch: 5 arguments expected");

  char root[4096];
  size_t root_len = 0;
  if (napi_get_value_string_utf8(env, argv[0], root, sizeof root, &root_len) != napi_ok || root_len == 0 || root_len >= sizeof root - 1) {
    return fail(env, "lstatBatch: root must be a non-empty string");
  }

  uint32_t nparts = 0, nstarts = 0;
  bool is_array = false;
  if (napi_is_array(env, argv[1], &is_array) != napi_ok || !is_array || napi_get_array_length(env, argv[1], &nparts) != napi_ok || nparts == 0) {
    return fail(env, "lstatBatch: texts must be a non-empty array of Buffers");
  }
  if (napi_is_array(env, argv[2], &is_array) != napi_ok || !is_array || napi_get_array_length(env, argv[2], &nstarts) != napi_ok || nstarts != nparts) {
    return fail(env, "lstatBatch: starts must be an array of Uint32Arrays, one per text");
  }
  part_t *parts = calloc(nparts, sizeof(part_t));
  if (parts == NULL) return fail(env, "lstatBatch: out of memory");
  size_t count = 0;
  for (uint32_t k = 0; k < nparts; k++) {
    napi_value text_value, starts_value;
    void *text = NULL, *starts = NULL;
    size_t text_len = 0, starts_len = 0;
    bool is_buffer = false;
    napi_typedarray_type type;
    if (napi_get_element(env, argv[1], k, &text_value) != napi_ok || napi_is_buffer(env, text_value, &is_buffer) != napi_ok || !is_buffer ||
        napi_get_buffer_info(env, text_value, &text, &text_len) != napi_ok) {
      free(parts);
      return fail(env, "lstatBatch: texts must be a non-empty array of Buffers");
    }
    if (napi_get_element(env, argv[2], k, &starts_value) != napi_ok ||
        napi_get_typedarray_info(env, starts_value, &type, &starts_len, &starts, NULL, NULL) != napi_ok || type != napi_uint32_array) {
      free(parts);
      return fail(env, "lstatBatch: starts must be an array of Uint32Arrays, one per text");
    }
    parts[k] = (part_t){(const char *)text, text_len, (const uint32_t *)starts, (uint32_t)count, (uint32_t)starts_len};
    count += starts_len;
  }

  napi_typedarray_type type;
  size_t out_len, errs_len;
  void *out, *errs;
  if (count > UINT32_MAX / 2 || napi_get_typedarray_info(env, argv[3], &type, &out_len, &out, NULL, NULL) != napi_ok || type != napi_bigint64_array || out_len < count * WORDS) {
    free(parts);
    return fail(env, "lstatBatch: out must be a BigInt64Array of 6 words per path");
  }
  if (napi_get_typedarray_info(env, argv[4], &type, &errs_len, &errs, NULL, NULL) != napi_ok || type != napi_int32_array || errs_len < count) {
    free(parts);
    return fail(env, "lstatBatch: errs must be an Int32Array of one word per path");
  }

  uint32_t calls = 0;
  int fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    int code = errno;
    for (size_t i = 0; i < count; i++) {
      memset((int64_t *)out + i * WORDS, 0, sizeof(int64_t) * WORDS);
      ((int32_t *)errs)[i] = code;
    }
  } else {
    batch_t batch = {fd, parts, nparts, (uint32_t)count, (int64_t *)out, (int32_t *)errs, NULL, 0};
    uint32_t *same = find_same(&batch, &calls);
    batch.same = same;
    // Two threads in all: this one and one helper, when there is enough work
    // to pay for starting it.
    pthread_t helper;
    int helped = count > 2 * CLAIM && pthread_create(&helper, NULL, work, &batch) == 0;
    work(&batch);
    if (helped) pthread_join(helper, NULL);
    close(fd);
    // Each repeated path gets its first entry's answer.
    if (same != NULL) {
      for (uint32_t i = 0; i < batch.count; i++) {
        uint32_t j = same[i];
        if (j == FIRST) continue;
        memcpy(batch.out + (size_t)i * WORDS, batch.out + (size_t)j * WORDS, sizeof(int64_t) * WORDS);
        batch.errs[i] = batch.errs[j];
      }
      free(same);
    }
  }
  free(parts);
  napi_value result;
  if (napi_create_uint32(env, calls, &result) != napi_ok) return NULL;
  return result;
}

static napi_value init(napi_env env, napi_value exports) {
  napi_value fn;
  if (napi_create_function(env, "lstatBatch", NAPI_AUTO_LENGTH, lstat_batch, NULL, &fn) != napi_ok) return NULL;
  if (napi_set_named_property(env, exports, "lstatBatch", fn) != napi_ok) return NULL;
  if (!digest_init(env, exports)) return NULL;
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, init)
