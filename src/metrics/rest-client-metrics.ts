import type { Registry } from 'prom-client';
import type { RequestObserver } from '../client/request-outcome.js';
import { counterIn, histogramIn } from './metric-helpers.js';

/** client-go's buckets of `rest_client_request_duration_seconds`. */
export const REST_CLIENT_LATENCY_BUCKETS: readonly number[] = [0.005, 0.025, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60];

/**
 * A request observer (for `KubeConnection.observeRequests`) writing client-go's REST client
 * families to `registry`: `rest_client_requests_total{code,host,method}` (`code` `<error>` when no
 * response came) and `rest_client_request_duration_seconds{verb,host}` (until the response head).
 * Calling it twice on one registry shares the same families.
 *
 * ```ts ignore (internal: restClientMetrics is not public; managerMetrics(registry).restClient is)
 * client.connection.observeRequests(restClientMetrics(registry));
 * ```
 */
export function restClientMetrics(registry: Registry): RequestObserver {
  const requests = counterIn(registry, 'rest_client_requests_total',
    'Number of HTTP requests, partitioned by status code, method, and host.', ['code', 'host', 'method']);
  const latency = histogramIn(registry, 'rest_client_request_duration_seconds',
    'Request latency in seconds. Broken down by verb, and host.', ['verb', 'host'], REST_CLIENT_LATENCY_BUCKETS);
  return (o) => {
    requests.inc({ code: o.code === undefined ? '<error>' : String(o.code), host: o.host, method: o.method });
    latency.observe({ verb: o.method, host: o.host }, Math.max(0, o.durationMs) / 1000);
  };
}
