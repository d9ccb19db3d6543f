import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { chainAfter, entryHash, entrySignature } from '../../src/audit/audit-chain.js';
import { ChainCheck } from '../../src/audit/audit-verify.js';
import { canonicalJson } from '../../src/audit/canonical-json.js';
import { GENESIS_HASH, type AuditRecord } from '../../src/store/audit-log.js';

/** Ten entries chained from the start, signed with `key` when given. */
function trail(key?: string, count = 10): AuditRecord[] {
  const drafts = Array.from({ length: count }, (_, i) => ({
    at: 1_000 + i,
    kind: 'decision',
    data: { call: `c${i}`, action: i % 2 === 0 ? 'allow' : 'deny', rule: `rule ${i}` },
  }));
  return chainAfter({ seq: 0, hash: GENESIS_HASH }, drafts, key);
}

function check(entries: readonly AuditRecord[], key?: string) {
  const chain = new ChainCheck(key);
  for (const entry of entries) if (chain.add(entry) !== undefined) break;
  return chain.finish();
}

/** An entry rewritten with a hash recomputed over its new content, as someone who knows the encoding would. */
function rewritten(entry: AuditRecord, data: unknown): AuditRecord {
  const changed = { ...entry, data };
  return { ...changed, hash: entryHash(changed) };
}

describe('Checking an audit trail', () => {
  it('passes a whole trail, and names its head', () => {
    const entries = trail();
    const result = check(entries);
    assert.equal(result.problem, undefined);
    assert.deepEqual(result.head, { seq: 10, hash: entries[9]!.hash });
    assert.equal(result.entries, 10);
  });

  it('names an entry whose content was changed', () => {
    const entries = trail();
    entries[3] = { ...entries[3]!, data: { ...(entries[3]!.data as object), action: 'allow' } };
    assert.deepEqual(check(entries).problem?.seq, 4);
    assert.equal(check(entries).problem?.what, 'changed');
  });

  it('names an entry changed with its hash recomputed: the next entry names another hash for it', () => {
    const entries = trail();
    entries[3] = rewritten(entries[3]!, { call: 'c3', action: 'allow', rule: 'forged' });
    const problem = check(entries).problem!;
    assert.equal(problem.seq, 4);
    assert.match(problem.message, /entry 4 was changed or replaced: entry 5 names another hash for it/);
  });

  it('names the first entry removed from the middle', () => {
    const entries = trail();
    entries.splice(5, 2);
    const problem = check(entries).problem!;
    assert.deepEqual([problem.seq, problem.what], [6, 'removed']);
  });

  it('names the first of two entries swapped', () => {
    const entries = trail();
    // Their positions stay (a row's key), their contents change places.
    const [a, b] = [entries[6]!, entries[7]!];
    entries[6] = { ...b, seq: 7 };
    entries[7] = { ...a, seq: 8 };
    assert.equal(check(entries).problem?.seq, 7);
  });

  it('names a prefix removed without a checkpoint, and passes one a checkpoint vouches for', () => {
    const entries = trail();
    assert.deepEqual(check(entries.slice(4)).problem?.seq, 1);
    assert.match(check(entries.slice(4)).problem!.message, /entries 1 to 4 were removed/);
    const [checkpoint] = chainAfter(
      { seq: 10, hash: entries[9]!.hash },
      [{ at: 2_000, kind: 'checkpoint', data: { through: 4, lastHash: entries[3]!.hash, removed: 4 } }],
      undefined,
    );
    assert.equal(check([...entries.slice(4), checkpoint!]).problem, undefined);
    // More removed than the checkpoint says: the first of those is named.
    assert.equal(check([...entries.slice(6), checkpoint!]).problem?.seq, 5);
  });

  it('checks signatures given the key: another key, a missing signature, a forged entry', () => {
    const entries = trail('right key');
    assert.equal(check(entries, 'right key').problem, undefined);
    assert.deepEqual(check(entries, 'wrong key').problem?.what, 'forged');
    assert.equal(check(entries, 'wrong key').problem?.seq, 1);
    const unsigned = entries.map(({ signature: _, ...entry }) => entry);
    assert.equal(check(unsigned, 'right key').problem?.what, 'unsigned');
    // Rewritten from entry 3 on, hashes recomputed, but signed with a key the forger chose.
    const forged = [...entries];
    let prev = entries[1]!.hash;
    for (let i = 2; i < forged.length; i++) {
      const changed = { ...forged[i]!, prev, data: { call: `c${i}`, action: 'allow' } };
      const hash = entryHash(changed);
      forged[i] = { ...changed, hash, signature: entrySignature('forger', hash) };
      prev = hash;
    }
    assert.equal(check(forged).problem, undefined, 'without the key a whole rewrite goes unseen');
    assert.deepEqual(check(forged, 'right key').problem?.seq, 3);
  });
});

describe('The canonical encoding', () => {
  it('sorts keys, drops undefined fields and writes no whitespace', () => {
    assert.equal(
      canonicalJson({ b: 1, a: [true, null, 'x'], c: undefined, d: { z: 1, y: 2 } }),
      '{"a":[true,null,"x"],"b":1,"d":{"y":2,"z":1}}',
    );
  });

  it('refuses what JSON cannot hold exactly', () => {
    assert.throws(() => canonicalJson({ n: Number.NaN }), /cannot encode NaN/);
    assert.throws(() => canonicalJson({ n: 1n }), /cannot encode a bigint/);
  });
});
