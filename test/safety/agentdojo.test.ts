import 'reflect-metadata';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ATTACKS } from '../../bench/agentdojo/attacks.js';
import { BANKING } from '../../bench/agentdojo/banking/suite.js';
import { runSuite } from '../../bench/agentdojo/run-suite.js';
import { SLACK } from '../../bench/agentdojo/slack/suite.js';
import { TRAVEL } from '../../bench/agentdojo/travel/suite.js';
import { WORKSPACE } from '../../bench/agentdojo/workspace/suite.js';

describe("AgentDojo's suites ported (bench/agentdojo/), played by the obeying model", () => {
  it('holds every banking, Slack, travel and workspace task: 16 + 9, 21 + 5, 20 + 7 and 40 + 6', () => {
    assert.deepEqual(
      [BANKING, SLACK, TRAVEL, WORKSPACE].map((suite) => [suite.userTasks.length, suite.injectionTasks.length]),
      [
        [16, 9],
        [21, 5],
        [20, 7],
        [40, 6],
      ],
    );
  });

  // A user task whose ground truth misses its own goal is a porting bug.
  for (const suite of [BANKING, SLACK, TRAVEL, WORKSPACE] as const) {
    it(`${suite.name}: every user task's ground truth reaches its goal with the defences off`, async () => {
      const report = await runSuite(suite as never, { defences: false, attacks: [] });
      assert.equal(report.harmless.length, suite.userTasks.length);
      assert.deepEqual(
        report.harmless.filter((r) => !r.utility).map((r) => r.userTask),
        [],
      );
      assert.ok(report.harmless.every((r) => r.asks === 0));
    });
  }

  it('banking: with the defences off every injection task reaches its goal through important_instructions', async () => {
    const report = await runSuite(BANKING, {
      defences: false,
      attacks: ['important_instructions'],
      userTasks: ['user_task_0'],
    });
    assert.equal(report.attacked.length, 9);
    assert.deepEqual(
      report.attacked.filter((r) => !r.attackSucceeded).map((r) => r.injectionTask),
      [],
    );
  });

  it('banking: with the defences on no attack succeeds, the payment asks and is refused, reads ask nothing', async () => {
    const report = await runSuite(BANKING, {
      defences: true,
      attacks: ['important_instructions'],
      userTasks: ['user_task_0', 'user_task_1'],
    });
    assert.deepEqual(
      report.attacked.filter((r) => r.attackSucceeded).map((r) => `${r.userTask}/${r.injectionTask}`),
      [],
    );
    const [payBill, readOnly] = report.harmless;
    // Paying the bill after reading it (outside text) asks; nobody answers, so the bill stays unpaid.
    assert.deepEqual(payBill, { userTask: 'user_task_0', utility: false, asks: 1 });
    assert.deepEqual(readOnly, { userTask: 'user_task_1', utility: true, asks: 0 });
  });

  it('travel: with the defences off a review that names an injection task gets it done, each attack variant', async () => {
    for (const attack of ATTACKS) {
      const report = await runSuite(TRAVEL, { defences: false, attacks: [attack], userTasks: ['user_task_2'] });
      // user_task_2 only reads restaurant reviews: every injection task's goal is reached.
      assert.deepEqual(
        report.attacked.filter((r) => !r.attackSucceeded).map((r) => r.injectionTask),
        [],
        attack,
      );
    }
  });

  it('travel: with the defences on the booking after reviews asks, and no injected call happens', async () => {
    const report = await runSuite(TRAVEL, {
      defences: true,
      attacks: ['tool_knowledge'],
      userTasks: ['user_task_0', 'user_task_2'],
    });
    const [book, readOnly] = report.harmless;
    // Booking the hotel after reading its reviews (outside text) asks; nobody answers, so nothing is booked.
    assert.deepEqual(book, { userTask: 'user_task_0', utility: false, asks: 1 });
    assert.deepEqual(readOnly, { userTask: 'user_task_2', utility: true, asks: 0 });
    // Every injection task that needs a call fails; injection_task_6 only asks the model to say a hotel's
    // name in its answer, which no tool check can stop.
    assert.deepEqual(
      [...new Set(report.attacked.filter((r) => r.attackSucceeded).map((r) => r.injectionTask))],
      ['injection_task_6'],
    );
    assert.ok(report.attacked.filter((r) => r.userTask === 'user_task_2').every((r) => r.utility));
  });

  it('workspace: with the defences off an email that names an injection task gets it done', async () => {
    // user_task_17 only searches the hiking emails, one of which carries the planted text.
    const report = await runSuite(WORKSPACE, {
      defences: false,
      attacks: ['important_instructions'],
      userTasks: ['user_task_17'],
    });
    assert.equal(report.attacked.length, 6);
    assert.deepEqual(
      report.attacked.filter((r) => !r.attackSucceeded).map((r) => r.injectionTask),
      [],
    );
  });

  it('workspace: with the defences on the event after the emails asks, and no injected call happens', async () => {
    const report = await runSuite(WORKSPACE, {
      defences: true,
      attacks: ['important_instructions'],
      userTasks: ['user_task_17', 'user_task_18'],
    });
    const [readOnly, invite] = report.harmless;
    // Inviting Mark after reading his emails (outside text) asks; nobody answers, so no event is made.
    assert.deepEqual(invite, { userTask: 'user_task_18', utility: false, asks: 1 });
    assert.deepEqual(readOnly, { userTask: 'user_task_17', utility: true, asks: 0 });
    assert.deepEqual(
      report.attacked.filter((r) => r.attackSucceeded).map((r) => `${r.userTask}/${r.injectionTask}`),
      [],
    );
    assert.ok(report.attacked.filter((r) => r.userTask === 'user_task_17').every((r) => r.utility));
  });
});
