import 'reflect-metadata';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as api from '../src/index.js';
import { DIST_SRC, publicDeclarations, ts } from './declarations.js';

/** An alias followed to what it names. */
function target(checker: ts.TypeChecker, symbol: ts.Symbol): ts.Symbol {
  return symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
}

/** The symbol a type reference in a declaration names, if any. */
function referenced(checker: ts.TypeChecker, node: ts.Node): ts.Symbol | undefined {
  let name: ts.Node | undefined;
  if (ts.isTypeReferenceNode(node)) name = node.typeName;
  else if (ts.isExpressionWithTypeArguments(node)) name = node.expression;
  else if (ts.isTypeQueryNode(node)) name = node.exprName;
  else if (ts.isImportTypeNode(node)) name = node.qualifier;
  if (name === undefined) return undefined;
  if (ts.isQualifiedName(name)) name = name.right;
  else if (ts.isPropertyAccessExpression(name)) name = name.name;
  const symbol = checker.getSymbolAtLocation(name);
  return symbol === undefined ? undefined : target(checker, symbol);
}

const isPrivate = (node: ts.Node): boolean =>
  ts.canHaveModifiers(node) &&
  (ts.getModifiers(node) ?? []).some(
    (m) => m.kind === ts.SyntaxKind.PrivateKeyword || m.kind === ts.SyntaxKind.ProtectedKeyword,
  );

describe('The public API', () => {
  it('exports exactly these runtime names: adding or removing one is a visible act', () => {
    assert.deepEqual(Object.keys(api).sort(), [
      'AGENT_DEFAULTS',
      'ARGUMENT_LIMITS',
      'ClosedError',
      'ConfigurationError',
      'ConflictError',
      'Cost',
      'DEFAULT_PRICES',
      'Describe',
      'Destructive',
      'EgressRefused',
      'EgressRefusedError',
      'EnvCredentialProvider',
      'EventBus',
      'Idempotent',
      'InvalidAnswerError',
      'InvalidArgumentsError',
      'JournalDataError',
      'Labels',
      'MemoryStore',
      'ModelRegistry',
      'NoArguments',
      'NotFoundError',
      'NotPermittedError',
      'OpenWorld',
      'OutsideFields',
      'ParkRequest',
      'Policy',
      'PostgresStore',
      'RUNNER_DEFAULTS',
      'ReadOnly',
      'Resources',
      'SERVE_DEFAULTS',
      'SqliteStore',
      'StoreError',
      'Timeout',
      'Tokens',
      'Tool',
      'ToolResult',
      'ToolTimeoutError',
      'Toolset',
      'Unavailable',
      'UnavailableError',
      'UsageError',
      'Wardrik',
      'WardrikError',
      'annotate',
      'annotation',
      'answerText',
      'callTool',
      'defineTool',
      'getPrivate',
      'hasCapability',
      'isRepeatable',
      'isTransient',
      'nonPublicReason',
      'openStore',
      'park',
      'publicOnly',
      'putPrivate',
      'updatePrivate',
      'verifyAudit',
      'verifyWebhook',
    ]);
  });

  it('exports exactly these types besides: the services Wardrik builds are types, not values', () => {
    const { checker, exports } = publicDeclarations();
    const values = new Set(Object.keys(api));
    const typesOnly = exports.map((symbol) => symbol.name).filter((name) => !values.has(name));
    assert.deepEqual(typesOnly.sort(), [
      'Agent',
      'AgentBudget',
      'AgentOptions',
      'AgentService',
      'AgentsOptions',
      'Annotations',
      'Answerer',
      'AnswererOptions',
      'Answerers',
      'ApproveOptions',
      'AuditHead',
      'AuditListOptions',
      'AuditLog',
      'AuditOptions',
      'AuditProblem',
      'AuditRecord',
      'AuditVerification',
      'Authenticate',
      'AuthenticatedPerson',
      'BudgetWarningEvent',
      'CallEventBase',
      'CallListOptions',
      'CallRecord',
      'CallReporter',
      'CallRequest',
      'CallState',
      'CapabilityContext',
      'CapabilityProvider',
      'CatalogEntry',
      'CedarPolicyOptions',
      'ClaimOutcome',
      'Clock',
      'ConflictArguments',
      'ConflictData',
      'ConflictOf',
      'ConflictReason',
      'ConnectionState',
      'ContentPart',
      'CostEvent',
      'CredentialContext',
      'CredentialProvider',
      'Decision',
      'DenyOptions',
      'DtoClass',
      'EditedCall',
      'EgressCheck',
      'EgressVerdict',
      'ElicitationMode',
      'EventInput',
      'FieldIssue',
      'FullStore',
      'HoldOutcome',
      'HostResolver',
      'HttpServerOptions',
      'HttpTransportOptions',
      'Inbox',
      'InboxApproval',
      'InboxEscalatedEvent',
      'InboxItem',
      'InboxKind',
      'InboxPersonOptions',
      'InboxRecord',
      'InboxStatus',
      'InboxWaitingMessage',
      'InboxWeb',
      'InboxWebListenOptions',
      'InboxWebOptions',
      'JournalWrite',
      'JsonSchema',
      'LabelAddedEvent',
      'LabelGate',
      'LanguageModel',
      'ListenOptions',
      'LogLevel',
      'McpBackoffOptions',
      'McpHub',
      'McpHubOAuthOptions',
      'McpHubOptions',
      'McpOAuthOptions',
      'McpRequestHandler',
      'McpServerOptions',
      'McpServerRecord',
      'McpServerRecords',
      'McpServerStatus',
      'McpToolsOptions',
      'McpTransportOptions',
      'Measure',
      'ModelCalledEvent',
      'ModelFactory',
      'ModelFailedEvent',
      'ModelPrice',
      'ModelProvider',
      'ModelUsage',
      'ModelsOptions',
      'NotifyFailedEvent',
      'ParkedCall',
      'ParkedKind',
      'PolicyAction',
      'PolicyHook',
      'PolicyHookDecision',
      'PolicyInput',
      'PolicyOptions',
      'PolicyRule',
      'PostgresStoreOptions',
      'PriceTable',
      'PrivateKey',
      'ProviderSettings',
      'PruneOptions',
      'PruneReport',
      'Pruning',
      'PublicOnlyOptions',
      'RecoveryFinishedEvent',
      'RecoveryReport',
      'RememberedClaim',
      'RememberedRecord',
      'RememberedResults',
      'ResolvedAddress',
      'RetentionOptions',
      'RunFinishedEvent',
      'RunParkedEvent',
      'RunResumedEvent',
      'RunStartedEvent',
      'RunSummary',
      'RunTotals',
      'RunView',
      'RunnerOptions',
      'RuntimeToolOptions',
      'SendOptions',
      'ServeApprovalOptions',
      'ServeAuthenticateOptions',
      'ServeClientInfo',
      'ServeConfig',
      'ServeHttpOptions',
      'ServeOptions',
      'SkippedTool',
      'SlackOptions',
      'SlackPersonOptions',
      'SpendHold',
      'SpendHolds',
      'SqliteStoreOptions',
      'StandardResult',
      'StandardSchema',
      'StdioTransportOptions',
      'StepRecord',
      'Store',
      'StoreCapabilities',
      'StoreCapability',
      'SyncJournal',
      'Timer',
      'TimerOptions',
      'Timers',
      'ToolAnswer',
      'ToolAnsweredEvent',
      'ToolCall',
      'ToolCalledEvent',
      'ToolCaller',
      'ToolCatalog',
      'ToolChangedEvent',
      'ToolContext',
      'ToolDecidedEvent',
      'ToolDecoratorOptions',
      'ToolDefinition',
      'ToolErrorCode',
      'ToolFailedEvent',
      'ToolFunction',
      'ToolInfo',
      'ToolLogEvent',
      'ToolOptions',
      'ToolParkedEvent',
      'ToolProgressEvent',
      'ToolRetryingEvent',
      'ToolRunner',
      'ToolSkippedEvent',
      'ToolSucceededEvent',
      'ToolsChangedEvent',
      'ToolsetClass',
      'ToolsetDecoratorOptions',
      'ToolsetEntry',
      'TurnOutcome',
      'TurnRecord',
      'TurnResult',
      'TurnStatus',
      'VerifyWebhookOptions',
      'WardrikErrorCode',
      'WardrikEvent',
      'WardrikMcpServer',
      'WardrikOptions',
      'WarningEvent',
      'WebAnswer',
      'WebItem',
      'WebhookHeaders',
      'WebhookOptions',
      'WebhookVerification',
    ]);
    // Every runtime name is declared too (a value export with no declaration would be untyped).
    const declared = new Set(exports.map((symbol) => symbol.name));
    for (const name of values) assert.ok(declared.has(name), name);
    assert.ok(checker !== undefined);
  });

  it('refers, in every public declaration, only to types it exports (or other packages own)', () => {
    const { checker, exports } = publicDeclarations();
    const published = new Set(exports.map((symbol) => target(checker, symbol)));
    const leaks = new Set<string>();
    for (const exportedSymbol of exports) {
      const symbol = target(checker, exportedSymbol);
      for (const declaration of symbol.declarations ?? []) {
        const visit = (node: ts.Node): void => {
          if (isPrivate(node)) return;
          const named = referenced(checker, node);
          if (named !== undefined && !(named.flags & ts.SymbolFlags.TypeParameter) && !published.has(named)) {
            const home = named.declarations?.[0]?.getSourceFile().fileName ?? '';
            if (home.startsWith(DIST_SRC))
              leaks.add(`${exportedSymbol.name} -> ${named.name} (${home.slice(DIST_SRC.length + 1)})`);
          }
          ts.forEachChild(node, visit);
        };
        visit(declaration);
      }
    }
    assert.deepEqual([...leaks].sort(), []);
  });

  it('exports exactly these runtime names from wardrik/openai-agents', async () => {
    const entry = await import('../src/openai-agents/index.js');
    assert.deepEqual(Object.keys(entry).sort(), ['openAiAgentsTools']);
  });
});
