import 'reflect-metadata';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { firstValueFrom, toArray } from 'rxjs';
import { container as rootContainer } from 'tsyringe';
import { defineTool, EventBus, Tokens, Wardrik, type WardrikEvent } from '../../src/index.js';

const badTool = defineTool({ name: 'bad name', description: 'Skipped.', run: () => null });
const okTool = defineTool({ name: 'ok', description: 'Kept.', run: () => 'ok', annotations: { readOnly: true } });

describe('events$', () => {
  it('replays start-up events, each with a time, to a subscriber that comes after create', async () => {
    const app = rootContainer.createChildContainer();
    app.register(Tokens.Clock, { useValue: { now: () => 42 } });
    const wardrik = await Wardrik.create({
      container: app,
      store: 'memory:',
      tools: { t: [badTool, okTool] },
      policy: { askWhenOutside: false },
    });
    const events = firstValueFrom(wardrik.events$.pipe(toArray()));
    await wardrik.close();
    assert.deepEqual(
      (await events).map((e) => [e.type, e.time]),
      [
        ['warning', 42],
        ['tool.skipped', 42],
      ],
    );
  });

  it('replays start-up events to every subscriber, not only the first', async () => {
    const wardrik = await Wardrik.create({ store: 'memory:', tools: { t: [badTool] } });
    const first = firstValueFrom(wardrik.events$.pipe(toArray()));
    const second = firstValueFrom(wardrik.events$.pipe(toArray()));
    await wardrik.close();
    assert.deepEqual(
      (await first).map((e) => e.type),
      ['tool.skipped'],
    );
    assert.deepEqual(
      (await second).map((e) => e.type),
      ['tool.skipped'],
    );
  });

  it('sends later events only to those subscribed when they happen, each with a time', async () => {
    let now = 1_000;
    const bus = new EventBus({ now: () => now });
    bus.emit({ type: 'warning', message: 'at start-up' });
    bus.markStarted();
    const early: WardrikEvent[] = [];
    bus.events$.subscribe((e) => early.push(e));
    now = 2_000;
    bus.emit({ type: 'tools.changed', toolset: 'github', mcp: 'hub', server: 'github', count: 3 });
    const late: WardrikEvent[] = [];
    bus.events$.subscribe((e) => late.push(e));
    assert.deepEqual(
      early.map((e) => [e.type, e.time]),
      [
        ['warning', 1_000],
        ['tools.changed', 2_000],
      ],
    );
    assert.deepEqual(
      late.map((e) => e.type),
      ['warning'],
    );
  });

  it('filters cost events into costs$ and tools.changed into toolChanges$', async () => {
    const bus = new EventBus({ now: () => 7 });
    bus.markStarted();
    const costs = firstValueFrom(bus.costs$.pipe(toArray()));
    const changes = firstValueFrom(bus.toolChanges$.pipe(toArray()));
    bus.emit({ type: 'cost', agent: 'a', run: 'r', source: 'tool', usd: 0.5, totalUsd: 0.5, totalMicroUsd: 500_000 });
    bus.emit({ type: 'tools.changed', toolset: 's', mcp: 'hub', server: 's', count: 0 });
    bus.emit({ type: 'warning', message: 'w' });
    bus.complete();
    assert.deepEqual(await costs, [
      { type: 'cost', agent: 'a', run: 'r', source: 'tool', usd: 0.5, totalUsd: 0.5, totalMicroUsd: 500_000, time: 7 },
    ]);
    assert.deepEqual(await changes, [
      { type: 'tools.changed', toolset: 's', mcp: 'hub', server: 's', count: 0, time: 7 },
    ]);
  });

  it('emits call events with agent, run, call, tool and time when a tool runs', async () => {
    const app = rootContainer.createChildContainer();
    app.register(Tokens.Clock, { useValue: { now: () => 5 } });
    const wardrik = await Wardrik.create({ container: app, store: 'memory:', tools: { t: [okTool] } });
    const events = firstValueFrom(wardrik.events$.pipe(toArray()));
    await wardrik.runner.run({ agent: 'support', run: 'r1', call: { id: 'c1', name: 't__ok', arguments: {} } });
    await wardrik.close();
    const called = (await events).find((e) => e.type === 'tool.called');
    assert.deepEqual(called, { type: 'tool.called', agent: 'support', run: 'r1', call: 'c1', tool: 't/ok', time: 5 });
    for (const event of await events) assert.equal(event.time, 5, event.type);
  });
});
