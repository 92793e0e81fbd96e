// native/digest.c's part of the addon's exports (sha256, hmacSha256, isatty).
#ifndef VOUCH_DIGEST_H
#define VOUCH_DIGEST_H
#include <node_api.h>

// Adds digest.c's functions to `exports`; 0 when Node-API failed.
int digest_init(napi_env env, napi_value exports);

#endif
