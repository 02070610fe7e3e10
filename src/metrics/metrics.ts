// The process's Prometheus metrics: one registry per Context (never prom-client's global one, so
// several apps in one process keep their counts apart). Counters here are counted wherever the work
// happens, whether or not /metrics is served; what is read only when scraped (tasks from the database,
// the process's memory) is added by the /metrics route (src/http/metrics.ts).
import { Counter, Histogram, Registry } from 'prom-client';
import { databaseErrorKind } from '../db/dialect.ts';

/** Seconds: from a kept answer (a millisecond) to a large upload or archive download (a minute). */
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

export class Metrics {
  readonly registry = new Registry();

  /** Images an import task committed, in this process (rate() gives images per second). */
  readonly importImages = new Counter({
    name: 'annostore_import_images_total',
    help: 'Images committed by import tasks run in this process',
    registers: [this.registry],
  });

  /** Images an export task wrote into its archive, in this process. */
  readonly exportImages = new Counter({
    name: 'annostore_export_images_total',
    help: 'Images written into export archives by export tasks run in this process',
    registers: [this.registry],
  });

  readonly blobStoreErrors = new Counter({
    name: 'annostore_blob_store_errors_total',
    help: 'Failed blob store calls, by operation',
    labelNames: ['operation'] as const,
    registers: [this.registry],
  });

  readonly databaseErrors = new Counter({
    name: 'annostore_database_errors_total',
    help: 'Failed database statements, by kind: constraint (a violation the service may answer as a 409), busy (lock or serialization, retried), other',
    labelNames: ['kind'] as const,
    registers: [this.registry],
  });

  readonly httpRequests = new Counter({
    name: 'annostore_http_requests_total',
    help: 'HTTP requests answered, by method, route pattern and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [this.registry],
  });

  readonly httpDuration = new Histogram({
    name: 'annostore_http_request_duration_seconds',
    help: 'Time from a request’s arrival to the end of its answer, by method, route pattern and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: DURATION_BUCKETS,
    registers: [this.registry],
  });

  countDatabaseError(error: unknown): void {
    this.databaseErrors.inc({ kind: databaseErrorKind(error) });
  }
}
