# vouch's optional native addon: the stat path (native/lstat_batch.c) and
# digests from Node's own OpenSSL (native/digest.c). Built at install
# by scripts/build-native.mjs; when it cannot be built, vouch uses its
# JavaScript fallback (src/scope/stat-batch.ts).
{
  'targets': [
    {
      'target_name': 'vouch_native',
      'sources': ['native/lstat_batch.c', 'native/digest.c'],
      'cflags': ['-O2', '-std=gnu11', '-Wall', '-Wextra', '-Wno-unused-parameter'],
      'libraries': ['-lpthread', '-ldl'],
      'conditions': [
        ['OS=="win"', { 'type': 'none', 'sources!': ['native/lstat_batch.c', 'native/digest.c'] }],
      ],
    },
  ],
}
