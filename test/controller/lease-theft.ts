/** Shared by the fencing tests: another identity takes a Lease of the in-memory Lease API, in virtual time. */
import { firstValueFrom } from 'rxjs';
import type { InMemoryLeaseApi } from '../../src/testing/in-memory-lease-api.js';
import { outcome, type VirtualTime } from '../manager/virtual-time.js';

/** Awaits `p`, advancing virtual time 1 ms at a time until it settles. */
async function answered<T>(vt: VirtualTime, p: Promise<T>): Promise<T> {
  const state = outcome(p);
  for (let i = 0; i < 100 && !state.settled; i++) await vt.advance(1);
  return p;
}

/** Identity `thief` reads the Lease `kube-system/<name>` and writes itself in as its holder, renewed now. */
export async function stealLease(vt: VirtualTime, api: InMemoryLeaseApi, name: string): Promise<void> {
  const thief = api.client('thief');
  const lease = await answered(vt, firstValueFrom(thief.get({ namespace: 'kube-system', name })));
  await answered(
    vt,
    firstValueFrom(thief.update({ ...lease, spec: { ...lease.spec, holderIdentity: 'thief', renewTime: new Date(vt.scheduler.now()).toISOString() } })),
  );
}
