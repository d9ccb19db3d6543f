import 'reflect-metadata';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BANKING } from '../../bench/agentdojo/banking/suite.js';
import { runSuite } from '../../bench/agentdojo/run-suite.js';
import { SLACK } from '../../bench/agentdojo/slack/suite.js';

describe("AgentDojo's suites ported (bench/agentdojo/), played by the obeying model", () => {
  it('holds every banking and Slack task: 16 + 9 and 21 + 5', () => {
    assert.deepEqual(
      [BANKING.userTasks.length, BANKING.injectionTasks.length, SLACK.userTasks.length, SLACK.injectionTasks.length],
      [16, 9, 21, 5],
    );
  });

  // A user task whose ground truth misses its own goal is a porting bug.
  for (const suite of [BANKING, SLACK] as const) {
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
});
