import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { newRunId } from '../src/run-ids.js';

const V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('newRunId', () => {
  it('makes version 7 UUIDs whose first 48 bits are the time in milliseconds', () => {
    const id = newRunId(Date.UTC(2026, 10, 30, 12));
    assert.match(id, V7);
    assert.equal(parseInt(id.replace(/-/g, '').slice(0, 12), 16), Date.UTC(2026, 10, 30, 12));
  });

  it('sorts its ids in the order made, within one millisecond and past 4,096 of them', () => {
    const at = Date.UTC(2030, 0, 1);
    const ids = Array.from({ length: 10_000 }, () => newRunId(at));
    for (const id of ids) assert.match(id, V7);
    assert.equal(new Set(ids).size, ids.length);
    assert.deepEqual([...ids].sort(), ids);
    // A clock that steps back does not make an id that sorts before the last.
    const later = newRunId(at - 5);
    assert.ok(later > ids[ids.length - 1]!, `${later} after ${ids[ids.length - 1]}`);
  });
});
