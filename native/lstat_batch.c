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
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

// Words per entry, as in src/cache/stat-key.ts: dev, ino, mode, size, mtime
// and ctime in nanoseconds.
#define WORDS 6
// Paths claimed at a time from the shared counter.
#define CLAIM 256

typedef struct {
  int root;
  const char *text;
  size_t text_len;
  const uint32_t *starts;
  uint32_t count;
  int64_t *out;
  int32_t *errs;
  uint32_t next; // claimed with __atomic_fetch_add
} batch_t;

static void stat_one(batch_t *b, uint32_t i) {
  uint32_t start = b->starts[i];
  int64_t *words = b->out + (size_t)i * WORDS;
  // A start past the text, or a path without its NUL, is a caller's bug:
  // answered as EINVAL, never read out of bounds.
  if (start >= b->text_len || memchr(b->text + start, 0, b->text_len - start) == NULL) {
    memset(words, 0, sizeof(int64_t) * WORDS);
    b->errs[i] = EINVAL;
    return;
  }
  const char *path = b->text + start;
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
    for (uint32_t i = from; i < to; i++) stat_one(b, i);
  }
  return NULL;
}

static napi_value fail(napi_env env, const char *message) {
  napi_throw_type_error(env, NULL, message);
  return NULL;
}

// lstatBatch(root: string, text: Buffer, starts: Uint32Array,
//            out: BigInt64Array (6 words per start), errs: Int32Array): undefined
static napi_value lstat_batch(napi_env env, napi_callback_info info) {
  size_t argc = 5;
  napi_value argv[5];
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc != 5) return fail(env, "lstatBatch: 5 arguments expected");

  char root[4096];
  size_t root_len = 0;
  if (napi_get_value_string_utf8(env, argv[0], root, sizeof root, &root_len) != napi_ok || root_len == 0 || root_len >= sizeof root - 1) {
    return fail(env, "lstatBatch: root must be a non-empty string");
  }

  void *text = NULL;
  size_t text_len = 0;
  bool is_buffer = false;
  if (napi_is_buffer(env, argv[1], &is_buffer) != napi_ok || !is_buffer || napi_get_buffer_info(env, argv[1], &text, &text_len) != napi_ok) {
    return fail(env, "lstatBatch: text must be a Buffer");
  }

  napi_typedarray_type type;
  size_t starts_len, out_len, errs_len;
  void *starts, *out, *errs;
  if (napi_get_typedarray_info(env, argv[2], &type, &starts_len, &starts, NULL, NULL) != napi_ok || type != napi_uint32_array) {
    return fail(env, "lstatBatch: starts must be a Uint32Array");
  }
  if (napi_get_typedarray_info(env, argv[3], &type, &out_len, &out, NULL, NULL) != napi_ok || type != napi_bigint64_array || out_len < starts_len * WORDS) {
    return fail(env, "lstatBatch: out must be a BigInt64Array of 6 words per path");
  }
  if (napi_get_typedarray_info(env, argv[4], &type, &errs_len, &errs, NULL, NULL) != napi_ok || type != napi_int32_array || errs_len < starts_len) {
    return fail(env, "lstatBatch: errs must be an Int32Array of one word per path");
  }

  int fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    int code = errno;
    for (size_t i = 0; i < starts_len; i++) {
      memset((int64_t *)out + i * WORDS, 0, sizeof(int64_t) * WORDS);
      ((int32_t *)errs)[i] = code;
    }
    return NULL;
  }
  batch_t batch = {fd, (const char *)text, text_len, (const uint32_t *)starts, (uint32_t)starts_len, (int64_t *)out, (int32_t *)errs, 0};
  // Two threads in all: this one and one helper, when there is enough work
  // to pay for starting it.
  pthread_t helper;
  int helped = starts_len > 2 * CLAIM && pthread_create(&helper, NULL, work, &batch) == 0;
  work(&batch);
  if (helped) pthread_join(helper, NULL);
  close(fd);
  return NULL;
}

static napi_value init(napi_env env, napi_value exports) {
  napi_value fn;
  if (napi_create_function(env, "lstatBatch", NAPI_AUTO_LENGTH, lstat_batch, NULL, &fn) != napi_ok) return NULL;
  if (napi_set_named_property(env, exports, "lstatBatch", fn) != napi_ok) return NULL;
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, init)
