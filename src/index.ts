// The public API. Every export is named and deliberate: test/public-api.test.ts lists them, values and
// types, and checks that no public declaration refers to a type left out of here.
// Values are what a user constructs, decorates with, throws, calls or reads; the services Wardrik builds
// (its runner, inbox, agents, hubs, servers) are exported as types only, and their members for Wardrik's
// own use are marked @internal, so the published declarations leave them out (stripInternal).
import 'reflect-metadata';

export { Wardrik } from './di/wardrik.js';
export type { ToolsetClass, ToolsetEntry, WardrikOptions } from './di/wardrik.js';
export type { ToolInfo } from './tools/tool-info.js';
export { Tokens } from './di/tokens.js';

export {
  ClosedError,
  ConfigurationError,
  ConflictError,
  EgressRefused,
  EgressRefusedError,
  InvalidAnswerError,
  InvalidArgumentsError,
  JournalDataError,
  NotFoundError,
  NotPermittedError,
  StoreError,
  ToolTimeoutError,
  Unavailable,
  UnavailableError,
  UsageError,
  WardrikError,
} from './errors.js';
export type {
  ConflictArguments,
  ConflictData,
  ConflictOf,
  ConflictReason,
  FieldIssue,
  WardrikErrorCode,
} from './errors.js';

export {
  Cost,
  Describe,
  Destructive,
  Idempotent,
  Labels,
  OutsideFields,
  OpenWorld,
  ReadOnly,
  Resources,
  Timeout,
  Tool,
  Toolset,
} from './tools/decorators.js';
export type { ToolDecoratorOptions, ToolsetDecoratorOptions } from './tools/metadata.js';
export { annotate, annotation, defineTool, getPrivate, isRepeatable, putPrivate, updatePrivate } from './tools/tool.js';
export type {
  Annotations,
  DtoClass,
  JsonSchema,
  PrivateKey,
  StandardResult,
  StandardSchema,
  ToolDefinition,
  ToolFunction,
  ToolOptions,
} from './tools/tool.js';
export type { RuntimeToolOptions } from './tools/runtime-tools.js';
export { NoArguments } from './tools/no-arguments.js';
export { callTool } from './tools/call-tool.js';
export type { ToolCall } from './tools/call-tool.js';
export { answerText, park, ParkRequest, ToolResult } from './tools/result.js';
export type { ContentPart, EditedCall, ToolAnswer, ToolErrorCode } from './tools/result.js';
export type { CallReporter, LogLevel, Measure, ToolCaller, ToolContext } from './tools/context.js';
export { ARGUMENT_LIMITS } from './tools/arguments.js';
export type { ToolCatalog } from './tools/catalog.js';
export type { CatalogEntry, SkippedTool } from './tools/catalog.js';

export { RUNNER_DEFAULTS } from './runner/runner-options.js';
export type { CallRequest, RecoveryReport, RunnerOptions, ToolRunner } from './runner/tool-runner.js';
export { isTransient } from './runner/transient.js';
export type { Clock, Timer, TimerOptions, Timers } from './clock.js';

export { Policy } from './policy/policy.js';
export type {
  AnswererOptions,
  Answerers,
  CedarPolicyOptions,
  Decision,
  LabelGate,
  PolicyAction,
  PolicyHook,
  PolicyHookDecision,
  PolicyInput,
  PolicyOptions,
  PolicyRule,
} from './policy/policy.js';

export type { ApproveOptions, DenyOptions, Inbox, InboxItem } from './inbox/inbox.js';
export type { Answerer } from './inbox/permissions.js';
export type { InboxWeb, InboxWebListenOptions } from './web/inbox-web.js';
export type { Authenticate, AuthenticatedPerson, InboxWebOptions, WebhookOptions } from './web/options.js';
export type { InboxPersonOptions } from './web/people.js';
export type { SlackOptions, SlackPersonOptions } from './web/slack-options.js';
export type { HttpServerOptions } from './http/server-options.js';
export type { WebAnswer, WebItem } from './web/api.js';
export type { InboxWaitingMessage } from './web/webhook-message.js';
export { verifyWebhook } from './web/webhook-signature.js';
export type { VerifyWebhookOptions, WebhookHeaders, WebhookVerification } from './web/webhook-signature.js';
export type { RunTotals, RunView } from './inbox/run-view.js';

export type { McpHub, McpServerStatus, McpToolsOptions } from './mcp/hub.js';
export type { ConnectionState } from './mcp/connection-settings.js';
export type {
  HttpTransportOptions,
  McpBackoffOptions,
  McpHubOptions,
  McpServerOptions,
  McpOAuthOptions,
  McpHubOAuthOptions,
  ElicitationMode,
  McpTransportOptions,
  StdioTransportOptions,
} from './mcp/options.js';
export { nonPublicReason, publicOnly } from './mcp/egress.js';
export type { EgressCheck, EgressVerdict, HostResolver, PublicOnlyOptions, ResolvedAddress } from './mcp/egress.js';
export { EnvCredentialProvider } from './mcp/credentials.js';
export type { CredentialContext, CredentialProvider } from './mcp/credentials.js';
export type { CapabilityContext, CapabilityProvider } from './mcp/capability.js';

export { MemoryStore } from './store/memory-store.js';
export { SqliteStore } from './store/sqlite-store.js';
export type { SqliteStoreOptions } from './store/sqlite-store.js';
export { PostgresStore } from './store/postgres-store.js';
export type { PostgresStoreOptions } from './store/postgres-store.js';
export { openStore } from './store/open-store.js';
export { hasCapability } from './store/capabilities.js';
export type { StoreCapabilities, StoreCapability } from './store/capabilities.js';
export type { RetentionOptions } from './store/retention.js';
export type { AuditHead, AuditListOptions, AuditLog, AuditRecord } from './store/audit-log.js';
export type { AuditOptions } from './audit/options.js';
export { verifyAudit } from './audit/audit-verify.js';
export type { AuditProblem, AuditVerification } from './audit/audit-verify.js';
export type {
  CallListOptions,
  CallRecord,
  CallState,
  ClaimOutcome,
  FullStore,
  HoldOutcome,
  InboxKind,
  InboxApproval,
  InboxRecord,
  InboxStatus,
  JournalWrite,
  McpServerRecord,
  McpServerRecords,
  ParkedKind,
  PruneOptions,
  PruneReport,
  Pruning,
  RememberedClaim,
  RememberedRecord,
  RememberedResults,
  RunSummary,
  SpendHold,
  SpendHolds,
  StepRecord,
  Store,
  SyncJournal,
  TurnRecord,
  TurnStatus,
} from './store/store.js';

export type { Agent, ParkedCall, SendOptions, TurnOutcome, TurnResult } from './agent/agent.js';
export type { AgentService } from './agent/agent-service.js';
export { AGENT_DEFAULTS } from './agent/options.js';
export type { AgentOptions, AgentsOptions } from './agent/options.js';
export type { AgentBudget } from './runner/budget-periods.js';
export { ModelRegistry } from './agent/model-registry.js';
export type { ModelFactory, ModelProvider, ModelsOptions, ProviderSettings } from './agent/model-registry.js';
export type { LanguageModel } from './agent/language-model.js';
export { DEFAULT_PRICES } from './agent/pricing.js';
export type { ModelPrice, ModelUsage, PriceTable } from './agent/pricing.js';

export type { ListenOptions, WardrikMcpServer } from './serve/mcp-server.js';
export type { McpRequestHandler } from './serve/http.js';
export { SERVE_DEFAULTS } from './serve/options.js';
export type { ServeConfig } from './cli/serve-config.js';
export type {
  ServeApprovalOptions,
  ServeAuthenticateOptions,
  ServeClientInfo,
  ServeHttpOptions,
  ServeOptions,
} from './serve/options.js';

export { EventBus } from './telemetry/event-bus.js';
export type {
  CallEventBase,
  CostEvent,
  BudgetWarningEvent,
  EventInput,
  InboxEscalatedEvent,
  LabelAddedEvent,
  NotifyFailedEvent,
  ModelCalledEvent,
  ModelFailedEvent,
  RecoveryFinishedEvent,
  RunFinishedEvent,
  RunParkedEvent,
  RunResumedEvent,
  RunStartedEvent,
  ToolAnsweredEvent,
  ToolCalledEvent,
  ToolDecidedEvent,
  ToolFailedEvent,
  ToolLogEvent,
  ToolParkedEvent,
  ToolProgressEvent,
  ToolRetryingEvent,
  ToolSkippedEvent,
  ToolsChangedEvent,
  ToolChangedEvent,
  ToolSucceededEvent,
  WardrikEvent,
  WarningEvent,
} from './telemetry/events.js';
