/** docs/semantics.md §8.5 CR-12. Ordering and grace run in virtual time; fake runnables log `<t> <name>:<event>`. */
import { Subject } from 'rxjs';
import { httpServerRunnable } from '../../src/manager/http-server.js';
import { toRunnable } from '../../src/api/runnable.js';
import { classifyRunnable, warmupOf } from '../../src/manager/classify-runnable.js';
import { webhookServer } from '../../src/webhook/webhook-server.js';
import { describe, expect, it } from 'vitest';

describe('CR-12 Runnable classification', () => {
  const start = () => Promise.resolve();
  it('HTTP servers, caches, needLeaderElection=false and the default group', () => {
    expect(classifyRunnable(httpServerRunnable({ name: 'm', port: 0, handler: () => undefined }))).toBe('httpServers');
    expect(classifyRunnable(httpServerRunnable({ name: 'm', port: 0, handler: () => undefined, needLeaderElection: true }))).toBe('leaderElection');
    expect(classifyRunnable({ start, waitForSync: () => Promise.resolve(true) })).toBe('caches');
    expect(classifyRunnable({ start, synced$: new Subject<boolean>() })).toBe('caches');
    expect(classifyRunnable({ start, needLeaderElection: false })).toBe('others');
    expect(classifyRunnable({ start, needLeaderElection: () => false })).toBe('others');
    expect(classifyRunnable({ start, needLeaderElection: true })).toBe('leaderElection');
    expect(classifyRunnable({ start })).toBe('leaderElection');
    expect(classifyRunnable(toRunnable(() => undefined))).toBe('leaderElection');
  });

  it('a webhook server goes to the Webhooks group (also the real one, which needs no leadership)', () => {
    expect(classifyRunnable({ start, isWebhookServer: true })).toBe('webhooks');
    expect(classifyRunnable({ start, isWebhookServer: true, needLeaderElection: false, listening: Promise.resolve() })).toBe('webhooks');
    expect(classifyRunnable(webhookServer({ tls: { cert: '', key: '' }, webhooks: [] }))).toBe('webhooks');
  });

  it('a leader-election runnable with `warmup` also goes to the Warmup group; other runnables do not', async () => {
    const calls: string[] = [];
    const warmup = (signal: AbortSignal) => {
      calls.push(`warmup aborted=${signal.aborted}`);
    };
    const w = warmupOf({ start, name: 'ctrl', warmup });
    expect(w?.name).toBe('ctrl warmup');
    expect(classifyRunnable({ start, warmup })).toBe('leaderElection');
    await w?.start(new AbortController().signal);
    expect(calls).toEqual(['warmup aborted=false']);
    expect(warmupOf({ start })).toBeUndefined();
    expect(warmupOf({ start, warmup, needLeaderElection: false })).toBeUndefined();
    expect(warmupOf({ start, warmup, synced$: new Subject<boolean>() })).toBeUndefined();
  });
});
