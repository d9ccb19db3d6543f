import { randomFillSync } from 'node:crypto';

// Random bytes drawn 10 at a time from a pool filled in one call: a call for each id costs more than the id.
const pool = new Uint8Array(10 * 256);
let drawn = pool.length;
let lastMs = -1;
let sequence = 0;
/** Each byte's two hex digits, made once: a served call makes an id, and formatting each byte showed in its profile. */
const HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'));

/**
 * A new run id: a time-ordered UUID (version 7, RFC 9562), so that the runs a store keeps in order of
 * their ids (a run's calls and steps are keyed by it) are written at the end of their tables, not at a
 * random place in them. A random UUID put each new run's rows in a random page, which split pages and
 * made every commit write more of them. The first 48 bits are the time in milliseconds; the next 12 count
 * the ids made in the same millisecond by this process (so its ids sort in the order made); the last 62
 * bits are random.
 */
export function newRunId(now = Date.now()): string {
  if (now > lastMs) {
    lastMs = now;
    sequence = 0;
  } else if (++sequence > 0xfff) {
    // 4,096 ids in one millisecond: borrow the next one, as RFC 9562 allows, to stay in order.
    lastMs++;
    sequence = 0;
  }
  if (drawn === pool.length) {
    randomFillSync(pool);
    drawn = 0;
  }
  const random = pool.subarray(drawn, (drawn += 10));
  const ms = lastMs.toString(16).padStart(12, '0');
  const seq = (0x7000 | sequence).toString(16);
  const variant = HEX[(random[0]! & 0x3f) | 0x80]! + hex(random, 1, 2);
  return `${ms.slice(0, 8)}-${ms.slice(8)}-${seq}-${variant}-${hex(random, 2, 8)}`;
}

function hex(bytes: Uint8Array, from: number, to: number): string {
  let out = '';
  for (let i = from; i < to; i++) out += HEX[bytes[i]!];
  return out;
}
