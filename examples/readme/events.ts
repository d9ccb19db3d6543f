// docs/events.md: the RxJS streams, and spans once the app installs an SDK.
import 'reflect-metadata';
import { trace } from '@opentelemetry/api';
import { BasicTracerProvider, ConsoleSpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { Wardrik } from '../../src/index.js';

trace.setGlobalTracerProvider(
  new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(new ConsoleSpanExporter())] }),
);

const wardrik = await Wardrik.create({ store: 'memory:' });
wardrik.events$.subscribe((event) => console.log(event.type, event)); // every event, typed, each with a time
wardrik.costs$.subscribe(({ agent, usd, totalUsd }) => console.log(`${agent} spent $${usd} (total $${totalUsd})`));
wardrik.toolChanges$.subscribe(({ toolset, count }) => console.log(`${toolset} offers ${count} tools`));
await wardrik.close();
