/**
 * A named health check: resolves (or returns) when healthy, throws/rejects with the reason when
 * not. Checks run on every probe request.
 */
export type HealthCheck = () => void | Promise<void>;

/** The answer to one probe request. */
export interface HealthzResponse {
  readonly status: 200 | 404 | 500;
  readonly body: string;
}

interface CheckStatus {
  readonly name: string;
  readonly healthy: boolean;
  readonly excluded: boolean;
  readonly reason?: string;
}

/** Options of {@link serveHealthz}. */
export interface ServeHealthzOptions {
  /**
   * Write `reason withheld` instead of a failed check's reason in the aggregate listing, as
   * controller-runtime does. Default true here; the manager's probe server defaults to false
   * (`health.withholdReasons`), so `/readyz` says why it is not ready.
   */
  readonly withholdReasons?: boolean;
}

async function runCheck(check: HealthCheck): Promise<unknown> {
  try {
    await check();
    return undefined;
  } catch (err) {
    return err ?? new Error('check failed');
  }
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * Answers a probe the way controller-runtime's healthz handler does (CR-15).
 *
 * `subPath` is the request path below the endpoint (`''` or `/` = aggregate, `/<name>` = one check),
 * `query` its query string. Aggregate: all pass → 200 `ok`; `?verbose` or any failure → one line per
 * check sorted by name (`[+]name ok`, `[+]name excluded: ok`, `[-]name failed: reason withheld`, or
 * the reason when `withholdReasons` is false), a
 * `warn:` line for unknown `?exclude=` names, and `healthz check passed` / `healthz check failed`.
 * No checks → a built-in `ping` check (also served at `/ping`). Single check: 200 `ok` or 500
 * `internal server error: <reason>`; unknown name → 404.
 */
export async function serveHealthz(
  checks: ReadonlyMap<string, HealthCheck>,
  subPath: string,
  query: URLSearchParams,
  options: ServeHealthzOptions = {},
): Promise<HealthzResponse> {
  const cleaned = cleanPath(subPath);
  if (cleaned === '/') return aggregate(checks, query, options.withholdReasons ?? true);
  const name = cleaned.slice(1);
  if (checks.size === 0 && name === 'ping') return { status: 200, body: 'ok' };
  const check = checks.get(name);
  if (!check) return { status: 404, body: '404 page not found\n' };
  const err = await runCheck(check);
  return err === undefined
    ? { status: 200, body: 'ok' }
    : { status: 500, body: `internal server error: ${describe(err)}\n` };
}

function cleanPath(p: string): string {
  const segments: string[] = [];
  for (const s of p.split('/')) {
    if (s === '' || s === '.') continue;
    if (s === '..') segments.pop();
    else segments.push(s);
  }
  return `/${segments.join('/')}`;
}

async function aggregate(checks: ReadonlyMap<string, HealthCheck>, query: URLSearchParams, withhold: boolean): Promise<HealthzResponse> {
  const unknownExcludes = new Set(query.getAll('exclude'));
  const parts: CheckStatus[] = [];
  let failed = false;
  const names = [...checks.keys()];
  const results = await Promise.all(
    names.map(async (name) => {
      if (unknownExcludes.has(name)) return { name, healthy: true, excluded: true };
      const err = await runCheck(checks.get(name) as HealthCheck);
      return err === undefined
        ? { name, healthy: true, excluded: false }
        : { name, healthy: false, excluded: false, reason: describe(err).replace(/\s*\n\s*/g, ' ') };
    }),
  );
  for (const r of results) {
    unknownExcludes.delete(r.name);
    if (!r.healthy) failed = true;
    parts.push(r);
  }
  if (checks.size === 0) parts.push({ name: 'ping', healthy: true, excluded: false });
  parts.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const verbose = query.has('verbose');
  if (!failed && !verbose) return { status: 200, body: 'ok' };
  let body = '';
  for (const p of parts) {
    if (p.excluded) body += `[+]${p.name} excluded: ok\n`;
    else if (p.healthy) body += `[+]${p.name} ok\n`;
    else body += `[-]${p.name} failed: ${withhold ? 'reason withheld' : (p.reason ?? 'unknown')}\n`;
  }
  if (unknownExcludes.size > 0) {
    const quoted = [...unknownExcludes].sort().map((n) => JSON.stringify(n)).join(',');
    body += `warn: some health checks cannot be excluded: no matches for ${quoted}\n`;
  }
  body += failed ? 'healthz check failed\n' : 'healthz check passed\n';
  return { status: failed ? 500 : 200, body };
}
