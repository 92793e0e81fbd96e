// SHA-256 and HMAC-SHA256 for vouch's hot paths (src/core/hash.ts), from
// the OpenSSL the running Node already carries: its functions are found
// with dlsym when the addon loads, never linked, so a Node that does not
// export them still loads the addon (without these functions) and vouch
// uses node:crypto. This is not a second implementation of either
// algorithm: it saves loading node:crypto's JavaScript (about 5 ms) in a
// hook that hashes a few hundred bytes. hash.test.ts holds both paths to
// the same answers. Also isatty(3), which Node offers only through node:tty
// (and the socket machinery it loads).
#define NAPI_VERSION 8
#include <node_api.h>

#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "digest.h"

// OpenSSL's types, opaque here: only pointers to them pass through.
typedef struct evp_md_st EVP_MD;
typedef struct evp_md_ctx_st EVP_MD_CTX;
typedef struct hmac_ctx_st HMAC_CTX;

static struct {
  const EVP_MD *(*sha256)(void);
  EVP_MD_CTX *(*md_new)(void);
  int (*md_init)(EVP_MD_CTX *, const EVP_MD *, void *);
  int (*md_update)(EVP_MD_CTX *, const void *, size_t);
  int (*md_final)(EVP_MD_CTX *, unsigned char *, unsigned int *);
  void (*md_free)(EVP_MD_CTX *);
  HMAC_CTX *(*hmac_new)(void);
  int (*hmac_init)(HMAC_CTX *, const void *, int, const EVP_MD *, void *);
  int (*hmac_update)(HMAC_CTX *, const unsigned char *, size_t);
  int (*hmac_final)(HMAC_CTX *, unsigned char *, unsigned int *);
  void (*hmac_free)(HMAC_CTX *);
} ssl;

#define FIND(field, name) (*(void **)&ssl.field = dlsym(RTLD_DEFAULT, name)) != NULL

// Every function or none: a partial set is no set.
static int find_openssl(void) {
  return FIND(sha256, "EVP_sha256") && FIND(md_new, "EVP_MD_CTX_new") && FIND(md_init, "EVP_DigestInit_ex") && FIND(md_update, "EVP_DigestUpdate") &&
         FIND(md_final, "EVP_DigestFinal_ex") && FIND(md_free, "EVP_MD_CTX_free") && FIND(hmac_new, "HMAC_CTX_new") && FIND(hmac_init, "HMAC_Init_ex") &&
         FIND(hmac_update, "HMAC_Update") && FIND(hmac_final, "HMAC_Final") && FIND(hmac_free, "HMAC_CTX_free");
}

// The bytes of a Uint8Array (a Buffer is one), or 0 with a TypeError thrown.
static int bytes_of(napi_env env, napi_value value, const unsigned char **data, size_t *length) {
  bool is_typed;
  napi_typedarray_type type;
  void *raw;
  if (napi_is_typedarray(env, value, &is_typed) != napi_ok || !is_typed ||
      napi_get_typedarray_info(env, value, &type, length, &raw, NULL, NULL) != napi_ok || type != napi_uint8_array) {
    napi_throw_type_error(env, NULL, "expected a Uint8Array");
    return 0;
  }
  *data = raw;
  return 1;
}

// The parts argument: an array of Uint8Arrays, fed in order to `feed`.
static int each_part(napi_env env, napi_value array, void *ctx, int (*feed)(void *, const unsigned char *, size_t)) {
  bool is_array;
  uint32_t count;
  if (napi_is_array(env, array, &is_array) != napi_ok || !is_array || napi_get_array_length(env, array, &count) != napi_ok) {
    napi_throw_type_error(env, NULL, "expected an array of Uint8Arrays");
    return 0;
  }
  for (uint32_t i = 0; i < count; i++) {
    napi_value item;
    const unsigned char *data;
    size_t length;
    if (napi_get_element(env, array, i, &item) != napi_ok || !bytes_of(env, item, &data, &length)) return 0;
    if (!feed(ctx, data, length)) {
      napi_throw_error(env, NULL, "OpenSSL refused the data");
      return 0;
    }
  }
  return 1;
}

// How one algorithm is fed, finished and freed, over OpenSSL's context for it.
typedef struct {
  int (*feed)(void *, const unsigned char *, size_t);
  int (*finish)(void *, unsigned char *, unsigned int *);
  void (*release)(void *);
  const char *finish_error;
} digest_ops;

static int md_feed(void *ctx, const unsigned char *data, size_t length) { return ssl.md_update(ctx, data, length) == 1; }
static int md_finish(void *ctx, unsigned char *out, unsigned int *length) { return ssl.md_final(ctx, out, length) == 1; }
static void md_release(void *ctx) { ssl.md_free(ctx); }
static int hmac_feed(void *ctx, const unsigned char *data, size_t length) { return ssl.hmac_update(ctx, data, length) == 1; }
static int hmac_finish(void *ctx, unsigned char *out, unsigned int *length) { return ssl.hmac_final(ctx, out, length) == 1; }
static void hmac_release(void *ctx) { ssl.hmac_free(ctx); }

static const digest_ops SHA256_OPS = {md_feed, md_finish, md_release, "OpenSSL could not finish a SHA-256"};
static const digest_ops HMAC_OPS = {hmac_feed, hmac_finish, hmac_release, "OpenSSL could not finish an HMAC-SHA256"};

// Feeds the parts to a started context, finishes it and frees it: a Buffer of the 32-byte digest, or NULL with an error thrown.
static napi_value digest_parts(napi_env env, void *ctx, napi_value parts, const digest_ops *ops) {
  unsigned char digest[64];
  unsigned int length = 0;
  int fed = each_part(env, parts, ctx, ops->feed);
  int done = fed && ops->finish(ctx, digest, &length) && length == 32;
  ops->release(ctx);
  if (!fed) return NULL;
  if (!done) {
    napi_throw_error(env, NULL, ops->finish_error);
    return NULL;
  }
  napi_value result;
  void *copy;
  if (napi_create_buffer_copy(env, length, digest, &copy, &result) != napi_ok) return NULL;
  return result;
}

// The call's first `count` arguments, or 0 with a TypeError naming the call.
static int arguments_of(napi_env env, napi_callback_info info, size_t count, napi_value *argv, const char *usage) {
  size_t argc = count;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok) return 0;
  if (argc < count) {
    napi_throw_type_error(env, NULL, usage);
    return 0;
  }
  return 1;
}

// sha256(parts: Uint8Array[]): Buffer of 32 bytes.
static napi_value sha256(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  if (!arguments_of(env, info, 1, argv, "sha256(parts)")) return NULL;
  EVP_MD_CTX *ctx = ssl.md_new();
  if (ctx == NULL || ssl.md_init(ctx, ssl.sha256(), NULL) != 1) {
    if (ctx != NULL) ssl.md_free(ctx);
    napi_throw_error(env, NULL, "OpenSSL could not start a SHA-256");
    return NULL;
  }
  return digest_parts(env, ctx, argv[0], &SHA256_OPS);
}

// hmacSha256(key: Uint8Array, parts: Uint8Array[]): Buffer of 32 bytes.
static napi_value hmac_sha256(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  if (!arguments_of(env, info, 2, argv, "hmacSha256(key, parts)")) return NULL;
  const unsigned char *key;
  size_t key_length;
  if (!bytes_of(env, argv[0], &key, &key_length)) return NULL;
  if (key_length > INT32_MAX) {
    napi_throw_range_error(env, NULL, "the key is too long");
    return NULL;
  }
  HMAC_CTX *ctx = ssl.hmac_new();
  // A NULL key means "the key set before" to OpenSSL: an empty one must still be a key.
  static const unsigned char empty = 0;
  if (ctx == NULL || ssl.hmac_init(ctx, key_length == 0 ? &empty : key, (int)key_length, ssl.sha256(), NULL) != 1) {
    if (ctx != NULL) ssl.hmac_free(ctx);
    napi_throw_error(env, NULL, "OpenSSL could not start an HMAC-SHA256");
    return NULL;
  }
  return digest_parts(env, ctx, argv[1], &HMAC_OPS);
}

// isatty(fd: number): boolean.
static napi_value is_a_tty(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  int32_t fd;
  if (!arguments_of(env, info, 1, argv, "isatty(fd)")) return NULL;
  if (napi_get_value_int32(env, argv[0], &fd) != napi_ok) {
    napi_throw_type_error(env, NULL, "isatty(fd)");
    return NULL;
  }
  napi_value result;
  if (napi_get_boolean(env, isatty(fd) == 1, &result) != napi_ok) return NULL;
  return result;
}

static int export_function(napi_env env, napi_value exports, const char *name, napi_callback callback) {
  napi_value fn;
  return napi_create_function(env, name, NAPI_AUTO_LENGTH, callback, NULL, &fn) == napi_ok && napi_set_named_property(env, exports, name, fn) == napi_ok;
}

int digest_init(napi_env env, napi_value exports) {
  if (!export_function(env, exports, "isatty", is_a_tty)) return 0;
  // Without Node's OpenSSL in reach, no digest functions: hash.ts uses node:crypto.
  if (!find_openssl()) return 1;
  return export_function(env, exports, "sha256", sha256) && export_function(env, exports, "hmacSha256", hmac_sha256);
}
