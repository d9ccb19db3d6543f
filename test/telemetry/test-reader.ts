import { MetricReader } from '@opentelemetry/sdk-metrics';

/** A metric reader the test collects from when it wants, as an exporter's timer would. */
export class TestReader extends MetricReader {
  protected onForceFlush(): Promise<void> {
    return Promise.resolve();
  }
  protected onShutdown(): Promise<void> {
    return Promise.resolve();
  }
}
