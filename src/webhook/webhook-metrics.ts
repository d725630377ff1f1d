import type { Registry } from 'prom-client';
import { counterIn, gaugeIn, histogramIn } from '../metrics/metric-helpers.js';

/** Latency buckets (seconds) as controller-runtime's webhook latency histogram (Prometheus' defaults). */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** Records one request of a webhook: call on arrival, then call the returned function once answered. */
export type WebhookRequestRecorder = (webhook: string) => (code: number, denied: boolean) => void;

/**
 * The webhook metrics, per webhook path, under controller-runtime's names:
 * `controller_runtime_webhook_requests_total{webhook, code}` (by HTTP status code),
 * `controller_runtime_webhook_latency_seconds{webhook}`,
 * `controller_runtime_webhook_requests_in_flight{webhook}`; and rxkube's
 * `rxkube_webhook_denials_total{webhook}` (admission requests denied, conversions failed), which
 * controller-runtime does not have. `now` is the clock in milliseconds (the server's scheduler).
 */
export function webhookMetrics(registry: Registry, now: () => number): WebhookRequestRecorder {
  const total = counterIn(registry, 'controller_runtime_webhook_requests_total', 'Total number of admission requests by HTTP status code.', ['webhook', 'code']);
  const latency = histogramIn(registry, 'controller_runtime_webhook_latency_seconds', 'Histogram of the latency of processing admission requests', ['webhook'], LATENCY_BUCKETS);
  const inFlight = gaugeIn(registry, 'controller_runtime_webhook_requests_in_flight', 'Current number of admission requests being served.', ['webhook']);
  const denials = counterIn(registry, 'rxkube_webhook_denials_total', 'Total number of admission requests denied (and conversions failed), by webhook.', ['webhook']);
  return (webhook) => {
    const started = now();
    inFlight.inc({ webhook });
    let done = false;
    return (code, denied) => {
      if (done) return;
      done = true;
      inFlight.dec({ webhook });
      latency.observe({ webhook }, Math.max(0, now() - started) / 1000);
      total.inc({ webhook, code: String(code) });
      if (denied) denials.inc({ webhook });
      else denials.inc({ webhook }, 0);
    };
  };
}
