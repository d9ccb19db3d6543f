import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAX_PATTERN_LENGTH, unsafePatternReason } from '../../src/tools/regex-safety.js';

describe('unsafePatternReason', () => {
  const refused: [string, RegExp][] = [
    ['^(a+)+$', /repeats a group that holds a repeat/],
    ['(a*)*', /repeats a group that holds a repeat/],
    ['^(\\w+\\s?)+$', /repeats a group that holds a repeat/],
    ['(?:x+y?)+z', /repeats a group that holds a repeat/],
    ['(.*a){20}', /holds an unbounded repeat/],
    ['((ab)*c){2,5}', /holds an unbounded repeat/],
    ['(a|ab)*c', /without bound a group with alternatives/],
    ['^(a|a)+$', /without bound a group with alternatives/],
    ['(a)\\1', /backreference/],
    ['(?<x>a)\\k<x>', /backreference/],
    ['(', /not a valid regular expression/],
    ['a'.repeat(MAX_PATTERN_LENGTH + 1), /longer than 1000 characters/],
  ];
  for (const [pattern, why] of refused) {
    it(`refuses ${pattern.slice(0, 40)}`, () => {
      assert.match(unsafePatternReason(pattern) ?? 'accepted', why);
    });
  }

  const accepted = [
    '^[a-z]+$',
    '^pi_',
    '^ord_\\d+$',
    '^(\\d{1,3}\\.){3}\\d{1,3}$',
    '^(https?|ftp)://',
    'a*a*b',
    '^\\p{L}+$',
    '[(+*)]+',
    '\\(a+\\)+',
    '^[^@]+@[^@]+\\.[a-z]{2,}$',
    '(?:ab)+',
    '(a|b)?c',
  ];
  for (const pattern of accepted) {
    it(`accepts ${pattern}`, () => {
      assert.equal(unsafePatternReason(pattern), undefined);
    });
  }
});
