import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ServerContext } from '@modelcontextprotocol/server';
import { SealedTokens, type Sealed } from '../../src/serve/sealed.js';

/** A request context as the SDK gives it, verified as `clientId` (or anonymous). */
const ctxOf = (clientId?: string) =>
  ({ http: clientId === undefined ? undefined : { authInfo: { clientId } } }) as unknown as ServerContext;

const conversation: Sealed = { kind: 'conversation', run: 'r-1', agent: 'alice' };

describe('SealedTokens: what a 2026-07-28 client carries, signed', () => {
  it('opens its own token for the same client, and nothing changed, forged, foreign, expired or oversized', async () => {
    const tokens = new SealedTokens('k'.repeat(32));
    const alice = ctxOf('alice');
    const token = await tokens.seal(conversation, alice);
    assert.deepEqual(await tokens.open(token, alice), conversation);
    assert.deepEqual(await tokens.verify(token, alice), conversation);

    const [prefix, body, mac] = token.split('.');
    const envelope = JSON.parse(Buffer.from(body!, 'base64url').toString('utf8')) as { p: { run: string } };
    envelope.p.run = 'r-2';
    const changed = [prefix, Buffer.from(JSON.stringify(envelope)).toString('base64url'), mac].join('.');
    assert.equal(await tokens.open(changed, alice), undefined, 'a changed payload fails its MAC');
    assert.equal(await tokens.open(token, ctxOf('bob')), undefined, "another client's token is refused");
    assert.equal(await tokens.open(token, ctxOf()), undefined, 'an anonymous caller cannot use a bound token');
    assert.equal(await new SealedTokens('o'.repeat(32)).open(token, alice), undefined, 'another key');
    assert.equal(await tokens.open(`${token}${'x'.repeat(20_000)}`, alice), undefined);
    assert.equal(await tokens.open('v1.e30.AAAA', alice), undefined);
    await assert.rejects(tokens.verify(changed, alice), /forged/);

    const now = Date.now;
    Date.now = () => now() + 8 * 24 * 3600 * 1000; // past the week a token lasts
    try {
      assert.equal(await tokens.open(token, alice), undefined, 'an expired token is refused');
    } finally {
      Date.now = now;
    }
  });

  it('opens a token only as it sealed it: another spelling of the same MAC is refused', async () => {
    const tokens = new SealedTokens('k'.repeat(32));
    const alice = ctxOf('alice');
    const token = await tokens.seal(conversation, alice);
    const digits = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const last = digits.indexOf(token.at(-1)!);
    const head = token.slice(0, -1);
    // The MAC's last digit carries 4 bits of the 32 bytes: the other 2 decode to nothing, so 3 more spellings
    // decode the same; so do padding, and characters base64url skips.
    const spellings = [
      ...[1, 2, 3].map((bits) => head + digits[last ^ bits]!),
      `${token}=`,
      `${token}==`,
      `${head} ${token.at(-1)!}`,
      `${head}\n${token.at(-1)!}`,
    ];
    for (const other of [tokens, new SealedTokens('k'.repeat(32))])
      for (const spelling of spellings)
        assert.equal(await other.open(spelling, alice), undefined, `${JSON.stringify(spelling.slice(-6))} is refused`);
    assert.deepEqual(await tokens.open(token, alice), conversation);
  });

  it('seals many tokens at once, each opening to its own payload', async () => {
    const tokens = new SealedTokens(undefined);
    const ctx = ctxOf('alice');
    const payloads = Array.from({ length: 200 }, (_, i): Sealed => ({
      kind: 'conversation',
      run: `r-${i}`,
      agent: 'a',
    }));
    const sealed = await Promise.all(payloads.map((payload) => tokens.seal(payload, ctx)));
    assert.deepEqual(await Promise.all(sealed.map((token) => tokens.open(token, ctx))), payloads);
  });

  it('gives the same token for the same envelope, and still checks what it remembers', async () => {
    const tokens = new SealedTokens('k'.repeat(32));
    const alice = ctxOf('alice');
    const [first, second] = await Promise.all([
      tokens.seal(conversation, alice),
      tokens.seal({ ...conversation }, alice),
    ]);
    assert.equal(first, second, 'one payload, one client, one second: one token');
    assert.notEqual(await tokens.seal(conversation, ctxOf('bob')), first, "another client's differs");
    assert.notEqual(await tokens.seal({ ...conversation, run: 'r-2' }, alice), first, 'another run differs');
    assert.equal(await tokens.open(first, ctxOf('bob')), undefined, 'a remembered token is still bound to its client');
    const now = Date.now;
    Date.now = () => now() + 8 * 24 * 3600 * 1000;
    try {
      assert.equal(await tokens.open(first, alice), undefined, 'a remembered token still expires');
      assert.notEqual(await tokens.seal(conversation, alice), first, 'a later second seals a new token');
    } finally {
      Date.now = now;
    }
    // More tokens than it remembers: the first ones are checked again from their MAC, and still open.
    const many = await Promise.all(
      Array.from({ length: 1500 }, (_, i) => tokens.seal({ kind: 'conversation', run: `r-${i}`, agent: 'a' }, alice)),
    );
    const opened = await Promise.all(many.map((token) => tokens.open(token, alice)));
    assert.deepEqual(
      opened.map((payload) => payload?.run),
      many.map((_, i) => `r-${i}`),
    );
  });
});
