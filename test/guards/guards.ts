/** A guard of a promise the docs make, the code it keeps, and the tests that fail without it. */
export interface Guard {
  /** As marked in src: `// Guard (name): why`, on the line above the code it keeps. */
  readonly name: string;
  /** The file under src/ that holds the mark. */
  readonly file: string;
  /** What the guarded line becomes when the guard is removed; the line is dropped when absent. */
  readonly instead?: string;
  /** Test files (under test/) of which at least one fails without the guard. */
  readonly tests: readonly string[];
}

/** The table CONTRIBUTING.md shows (under "Guards"): keep the two the same. */
export const GUARDS: readonly Guard[] = [
  {
    name: 'once-in-process',
    file: 'src/runner/tool-runner.ts',
    tests: ['test/runner/calls-in-flight.test.ts'],
  },
  {
    name: 'journal-before-effect',
    file: 'src/runner/attempt.ts',
    instead: 'if (false) return await answerOrTakeOver(deps, p, expected);',
    tests: ['test/runner/tool-runner.test.ts'],
  },
  {
    name: 'retry-only-repeatable',
    file: 'src/runner/call-attempts.ts',
    instead: 'const limit = first - 1 + this.settings.attempts;',
    tests: ['test/runner/tool-runner.test.ts'],
  },
  {
    name: 'no-retry-after-question',
    file: 'src/runner/call-attempts.ts',
    instead: 'if (attempt >= limit || !isTransient(outcome.threw))',
    tests: ['test/mcp/question-timeout.test.ts'],
  },
  {
    name: 'serial-recovery',
    file: 'src/runner/pass-queue.ts',
    instead: 'return this.start();',
    tests: ['test/runner/pass-queue.test.ts'],
  },
  {
    name: 'running-here-skipped',
    file: 'src/runner/tool-runner.ts',
    tests: ['test/runner/recovery-overlap.test.ts'],
  },
  {
    name: 'take-over-while-started',
    file: 'src/runner/attempt.ts',
    tests: ['test/runner/recovery.test.ts', 'test/runner/recovery-probe.test.ts'],
  },
  {
    name: 'within-budget',
    file: 'src/runner/budget-holds.ts',
    tests: ['test/runner/tool-runner.test.ts', 'test/runner/shared-store.test.ts'],
  },
  {
    name: 'labels-kept',
    file: 'src/runner/record.ts',
    instead: 'if (false) {',
    tests: ['test/runner/tool-runner.test.ts'],
  },
  {
    name: 'same-arguments-same-call',
    file: 'src/runner/call-journal.ts',
    instead: 'if (false) {',
    tests: ['test/runner/tool-runner.test.ts'],
  },
  {
    name: 'decided-by-journaled',
    file: 'src/runner/call-journal.ts',
    instead: 'const decidedBy = undefined;',
    tests: ['test/runner/decided-by.test.ts', 'test/policy/cedar.test.ts'],
  },
  {
    name: 'remembered-key-arguments',
    file: 'src/runner/remembered-keys.ts',
    tests: ['test/runner/tool-runner.test.ts', 'test/runner/shared-store.test.ts'],
  },
  {
    name: 'digest-bound',
    file: 'src/inbox/inbox.ts',
    instead: 'if (false) {',
    tests: ['test/errors.test.ts', 'test/inbox/inbox.test.ts'],
  },
  {
    name: 'approvers-only',
    file: 'src/inbox/inbox.ts',
    tests: ['test/inbox/approvers.test.ts', 'test/web/approvers.test.ts'],
  },
  {
    name: 'quorum-compare-and-set',
    file: 'src/inbox/inbox.ts',
    instead: "if (!(await this.store.updateInboxItem({ ...counted, revision: revision + 1 }, 'pending'))) throw RACED;",
    tests: ['test/inbox/approvers.test.ts', 'test/inbox/quorum-nodes.test.ts'],
  },
  {
    name: 'journal-compare-and-set',
    file: 'src/store/memory-store.ts',
    tests: ['test/store/memory-store.test.ts'],
  },
  {
    name: 'policy-fails-closed',
    file: 'src/runner/decide.ts',
    instead: "deciding = { action: 'allow', rule: 'guard removed' };",
    tests: ['test/policy/fail-closed.test.ts'],
  },
  {
    name: 'own-data-confidential',
    file: 'src/tools/labels.ts',
    tests: ['test/policy/safe-defaults.test.ts', 'test/safety/attack-corpus.test.ts'],
  },
  {
    name: 'reply-carries-labels',
    file: 'src/agent/conversation-history.ts',
    instead: 'return [...read].sort();',
    tests: ['test/safety/relay-across-turns.test.ts', 'test/agent/conversation-labels.test.ts'],
  },
  {
    name: 'outside-value-held',
    file: 'src/tools/value-table.ts',
    tests: ['test/safety/value-labels.test.ts'],
  },
  {
    name: 'label-names-not-shown',
    file: 'src/tools/value-table.ts',
    instead: 'const named = joined;',
    tests: ['test/safety/values-attacks.test.ts'],
  },
  {
    name: 'edit-note-held',
    file: 'src/agent/turn-values.ts',
    instead: 'return answerText(held);',
    tests: ['test/safety/values-attacks.test.ts'],
  },
  {
    name: 'outside-tools-steer',
    file: 'src/agent/turn-driver.ts',
    instead: 'if (false)',
    tests: ['test/safety/values-attacks.test.ts'],
  },
  {
    name: 'outside-tools-label',
    file: 'src/agent/agent-service.ts',
    instead: 'const toolsOutside = false;',
    tests: ['test/safety/outside-tools.test.ts', 'test/safety/attack-corpus.test.ts'],
  },
  {
    name: 'outside-tools-resumed',
    file: 'src/agent/turn-driver.ts',
    instead: 'if (false)',
    tests: ['test/safety/outside-tools.test.ts'],
  },
  {
    name: 'reviewed-rug-pull',
    file: 'src/mcp/server-tools.ts',
    instead: 'markServerTool(definition, options.reviewed === true ? () => true : undefined);',
    tests: ['test/safety/reviewed-tools.test.ts'],
  },
  {
    name: 'reviewed-tool-added',
    file: 'src/mcp/definition-pins.ts',
    instead: 'const addsToReviewed = false;',
    tests: ['test/safety/reviewed-tools.test.ts'],
  },
  {
    name: 'outside-error-labelled',
    file: 'src/tools/call-tool.ts',
    instead: 'const quotesOutside = false;',
    tests: ['test/safety/outside-errors.test.ts'],
  },
  {
    name: 'handle-keys-resolved',
    file: 'src/tools/value-table.ts',
    instead: 'const named = key;',
    tests: ['test/safety/handle-keys.test.ts'],
  },
  {
    name: 'values-by-default',
    file: 'src/policy/policy.ts',
    instead: "return this.options.labels === 'values' && this.asksWhenOutside;",
    tests: ['test/safety/default-labels.test.ts'],
  },
  {
    name: 'reader-failure-held',
    file: 'src/agent/turn-values.ts',
    instead: 'const said = (error as Error).message;',
    tests: ['test/safety/values-attacks.test.ts'],
  },
  {
    name: 'outside-fields-held',
    file: 'src/tools/value-table.ts',
    instead: 'const shown = replaceAtPaths(answer, outsideFields, (value) => value);',
    tests: ['test/safety/values-in-runs.test.ts'],
  },
  {
    name: 'outside-argument-asks',
    file: 'src/tools/value-decision.ts',
    tests: ['test/safety/value-labels.test.ts'],
  },
  {
    name: 'reader-reveals-few-bits',
    file: 'src/tools/value-reader.ts',
    tests: ['test/safety/value-labels.test.ts'],
  },
  {
    name: 'handles-resolved-first',
    file: 'src/agent/turn-tool-calls.ts',
    instead: 'const resolved = calls.map(() => undefined);',
    tests: ['test/safety/values-in-runs.test.ts'],
  },
  {
    name: 'value-verdict-joined',
    file: 'src/runner/decide.ts',
    instead: 'return decision;',
    tests: ['test/safety/values-in-runs.test.ts'],
  },
  {
    name: 'values-journaled',
    file: 'src/agent/turn-tool-calls.ts',
    instead: 'const held = undefined;',
    tests: ['test/safety/values-in-runs.test.ts'],
  },
  {
    name: 'grant-ends-on-gating-label',
    file: 'src/runner/run-grants.ts',
    tests: ['test/policy/safe-defaults.test.ts', 'test/inbox/run-scope.test.ts'],
  },
  {
    name: 'verdict-audited',
    file: 'src/runner/decide.ts',
    instead: 'if (false)',
    tests: ['test/audit/audit-trail.test.ts'],
  },
  {
    name: 'audit-chain-linked',
    file: 'src/audit/audit-verify.ts',
    instead: 'if (false)',
    tests: ['test/audit/audit-verify.test.ts'],
  },
  {
    name: 'audit-one-appender',
    file: 'src/store/postgres-store.ts',
    instead: "return this.locked('append to the audit trail', undefined, (run) => appendAuditLocked(run, seal));",
    tests: ['test/audit/audit-nodes.test.ts'],
  },
  {
    name: 'warn-at-threshold',
    file: 'src/runner/budget-warnings.ts',
    tests: ['test/runner/period-budgets.test.ts'],
  },
  {
    name: 'warn-once',
    file: 'src/runner/budget-warnings.ts',
    tests: ['test/runner/period-budgets.test.ts'],
  },
  {
    name: 'cedar-long-exact',
    file: 'src/policy/cedar-values.ts',
    instead: 'return result;',
    tests: ['test/policy/cedar-differential.test.ts'],
  },
  {
    name: 'cedar-ids-as-parsed',
    file: 'src/policy/cedar-policies.ts',
    instead: 'const cedarIds = parts.policies.map((_, index) => `policy${index}`);',
    tests: ['test/policy/cedar-differential.test.ts'],
  },
  {
    name: 'restored-run-named',
    file: 'src/openai-agents/sdk-calls.ts',
    instead: 'if (false)',
    tests: ['test/openai-agents/openai-agents.test.ts'],
  },
  {
    name: 'task-end-kept',
    file: 'src/serve/tasks.ts',
    instead: 'if (kept === undefined)',
    tests: ['test/serve/task-methods.test.ts'],
  },
  {
    name: 'v1-token-refusal',
    file: 'src/serve/bearer.ts',
    instead: 'if (false)',
    tests: ['test/serve/doors.test.ts'],
  },
  {
    name: 'tasks-only-when-declared',
    file: 'src/serve/stateless.ts',
    instead: 'if (true)',
    tests: ['test/serve/stateless-tasks.test.ts'],
  },
  {
    name: 'cancelled-task-never-runs',
    file: 'src/serve/stateless-tasks.ts',
    instead: 'if (false) {',
    tests: ['test/serve/stateless-tasks.test.ts'],
  },
  {
    name: 'tasks-per-client',
    file: 'src/serve/stateless-tasks.ts',
    instead: 'if (false)',
    tests: ['test/serve/doors-2026.test.ts'],
  },
  {
    name: 'tasks-stop-on-close',
    file: 'src/serve/stateless-tasks.ts',
    instead: 'for (const { stop } of [])',
    tests: ['test/serve/doors-2026.test.ts'],
  },
  {
    name: 'listens-per-client',
    file: 'src/serve/http.ts',
    instead: 'if (false)',
    tests: ['test/serve/doors-2026.test.ts'],
  },
  {
    name: 'warnings-bounded',
    file: 'src/serve/mcp-server.ts',
    instead: 'this.deps = deps;',
    tests: ['test/serve/doors-2026.test.ts'],
  },
  {
    name: 'token-one-spelling',
    file: 'src/serve/sealed.ts',
    instead: "const mac = Buffer.from(Buffer.from(written, 'base64url').toString('base64url'), 'utf8');",
    tests: ['test/serve/sealed.test.ts'],
  },
  {
    name: 'served-reach-outside',
    file: 'src/serve/naming.ts',
    instead: 'if (false)',
    tests: ['test/serve/hub.test.ts', 'test/safety/attack-corpus.test.ts'],
  },
  {
    name: 'ended-call-question-unlinked',
    file: 'src/mcp/call-links.ts',
    instead: 'if (call !== undefined) return { call, candidates: [] };',
    tests: ['test/mcp/question-timeout.test.ts'],
  },
  {
    name: 'server-waits-not-asks',
    file: 'src/mcp/input-required.ts',
    tests: ['test/serve/hub.test.ts'],
  },
  {
    name: 'hub-run-conversation',
    file: 'src/mcp/connection.ts',
    instead: 'if (false)',
    tests: ['test/serve/hub.test.ts'],
  },
  {
    name: 'unknown-conversation-new',
    file: 'src/mcp/connection.ts',
    instead: 'if (true) throw error;',
    tests: ['test/serve/hub.test.ts'],
  },
];
