import type { Attributes, Span, Tracer } from '@opentelemetry/api';

import { loadOtelApi, type OtelApi } from '../telemetry/otel-api.js';
import { markToolSpan } from '../telemetry/tool-spans.js';
import type { ToolRef } from '../tools/tool-origin.js';

/** A span as the turn loop uses it; a no-op when OpenTelemetry is not installed. */
export interface TraceSpan {
  set(attributes: Attributes): void;
  /** Marks the span failed: `error.type` and an error status with `message`. */
  fail(type: string, message: string): void;
  end(): void;
}

const NOOP_SPAN: TraceSpan = Object.freeze({ set() {}, fail() {}, end() {} });

/**
 * OpenTelemetry spans for turns, model calls and tool calls, named and attributed after the GenAI
 * semantic conventions: `invoke_agent {agent}` (the turn), with children `chat {model}` and
 * `execute_tool {tool}`. Through `@opentelemetry/api`, which is a no-op until the app installs an
 * SDK, and loaded only when a turn starts. A resumed turn is a new `invoke_agent` span.
 */
export class AgentTracing {
  private api: OtelApi | undefined;
  private tracer: Tracer | undefined;

  /** Loads the API if the app has it; call before the first span. */
  async ready(): Promise<void> {
    if (this.api !== undefined) return;
    this.api = await loadOtelApi();
    this.tracer = this.api?.trace.getTracer('wardrik');
  }

  /** The span of one turn (`invoke_agent`). */
  turn(agent: string, run: string, model: string, provider: string): TraceSpan {
    return this.start(undefined, `invoke_agent ${agent}`, 'INTERNAL', {
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': agent,
      'gen_ai.agent.id': agent,
      'gen_ai.conversation.id': agent,
      'gen_ai.provider.name': provider,
      'gen_ai.request.model': model,
      'wardrik.run': run,
    });
  }

  /** A model call (`chat`), a child of the turn. */
  chat(parent: TraceSpan, model: string, provider: string, attributes: Attributes): TraceSpan {
    return this.start(parent, `chat ${model}`, 'CLIENT', {
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': provider,
      'gen_ai.request.model': model,
      ...attributes,
    });
  }

  /**
   * A tool call (`execute_tool`), a child of the turn: of type `extension` for an MCP server's tool (whose
   * hub adds the `mcp.*` attributes as it sends the call), else `function`.
   */
  tool(parent: TraceSpan, name: string, callId: string, tool: ToolRef | undefined): TraceSpan {
    const span = this.start(parent, `execute_tool ${name}`, 'INTERNAL', {
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': name,
      'gen_ai.tool.call.id': callId,
      'gen_ai.tool.type': tool?.extension === true ? 'extension' : 'function',
      ...(tool === undefined ? {} : { 'gen_ai.tool.description': tool.description }),
    });
    if (span instanceof OtelSpan) markToolSpan(span.span);
    return span;
  }

  /**
   * Runs `fn` with `span` as the current span, so that what it calls (an MCP hub sending `traceparent`)
   * continues the trace. Takes effect where the app installed a context manager, as OpenTelemetry SDKs do.
   */
  within<T>(span: TraceSpan, fn: () => T): T {
    const api = this.api;
    if (api === undefined || !(span instanceof OtelSpan)) return fn();
    return api.context.with(api.trace.setSpan(api.context.active(), span.span), fn);
  }

  private start(
    parent: TraceSpan | undefined,
    name: string,
    kind: 'INTERNAL' | 'CLIENT',
    attributes: Attributes,
  ): TraceSpan {
    const api = this.api;
    const tracer = this.tracer;
    // No SDK, or the turn was not sampled: its model and tool calls cost nothing here either.
    if (api === undefined || tracer === undefined || parent === NOOP_SPAN) return NOOP_SPAN;
    const parentSpan = parent instanceof OtelSpan ? parent.span : undefined;
    // The parent goes in explicitly, so spans nest without the app installing a context manager.
    // A turn nests under the app's active span (an HTTP request …) when the app has a context manager.
    const context = parentSpan === undefined ? api.context.active() : api.trace.setSpan(api.ROOT_CONTEXT, parentSpan);
    const span = tracer.startSpan(name, { kind: api.SpanKind[kind], attributes }, context);
    return span.isRecording() ? new OtelSpan(span, api) : NOOP_SPAN;
  }
}

class OtelSpan implements TraceSpan {
  constructor(
    readonly span: Span,
    private readonly api: OtelApi,
  ) {}

  set(attributes: Attributes): void {
    this.span.setAttributes(attributes);
  }

  fail(type: string, message: string): void {
    this.span.setAttribute('error.type', type);
    this.span.setStatus({ code: this.api.SpanStatusCode.ERROR, message });
  }

  end(): void {
    this.span.end();
  }
}
