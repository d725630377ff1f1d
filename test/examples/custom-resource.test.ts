/** Tier 2: the custom-resource example (CRD, indexed informer, finalizer) against the embedded API server. */
import { describe, expect, it } from 'vitest';
import { runCustomResourceExample } from '../../examples/custom-resource/main.js';
import { database, teamOf } from '../../examples/custom-resource/database.js';
import { Provisioner } from '../../examples/custom-resource/provisioner.js';

describe('custom-resource example', () => {
  it('provisions within the team quota, and the finalizer releases a deleted database', async () => {
    const lines: string[] = [];
    const result = await runCustomResourceExample((l) => lines.push(l));
    expect(result.instances).toEqual(['default/index', 'default/orders', 'default/refunds']);
    expect(result.databases).toEqual(['index: Ready', 'orders: Ready', 'refunds: Ready']);
    const text = lines.join('\n');
    expect(text).toContain('reconciled default/refunds (team payments): OverQuota');
    expect(text).toContain('team index: payments → ledger, orders, refunds; search → index');
    // the cleanup ran before refunds could take ledger's place
    expect(text.indexOf('cleanup default/ledger')).toBeGreaterThan(0);
    expect(text.indexOf('cleanup default/ledger')).toBeLessThan(text.lastIndexOf('reconciled default/refunds (team payments): Ready'));
    // The embedded server called the manager's webhooks: defaulting, a denial, conversion.
    expect(text).toContain('MutatingWebhookConfiguration: mdatabase.example.com');
    expect(text).toContain('ValidatingWebhookConfiguration: vdatabase.example.com');
    expect(text).toContain('index asked without a size: defaulted by the webhook to sizeGi 10, label example.com/team=search');
    expect(text).toContain('huge (500 Gi) refused: 403 Forbidden: admission webhook "vdatabase.example.com" denied the request: spec.sizeGi must be at most 100, got 500');
    expect(text).toContain('orders read as example.com/v2 (converted by the webhook): {"owner":{"team":"payments"},"storage":{"sizeGi":10}}');
  }, 60_000);

  it('indexes by team and provisions idempotently', () => {
    expect(teamOf(database('a', 'x'))).toEqual(['x']);
    const p = new Provisioner();
    p.ensure('ns/a', 'x', 1);
    p.ensure('ns/a', 'x', 2);
    p.release('ns/b');
    expect(p.list()).toEqual(['ns/a']);
  });
});
