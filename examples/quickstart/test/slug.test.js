import assert from 'node:assert/strict';
import { test } from 'node:test';
import { slugify } from '../src/slug.js';

test('joins words with single dashes', () => {
  assert.equal(slugify('Hello, World!'), 'hello-world');
});

test('trims leading and trailing separators', () => {
  assert.equal(slugify('  --vouch--  '), 'vouch');
});
