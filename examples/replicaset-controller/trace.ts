/**
 * The terminal trace of the example: one line per event arriving from the informers, per sync
 * (with its outcome and duration), and per scenario step, stamped with the time since start.
 */
import { conditions, objectOf, ownerRefs, type InformerEvent, type K8s } from 'rxkube';
import type { ReplicaSetSyncReport } from '@rxkube/controller-manager';

type Pod = K8s.Pod;
type ReplicaSet = K8s.ReplicaSet;

export interface TraceOptions {
  /** Where lines go; default `console.log`. */
  readonly write?: (line: string) => void;
  /** ANSI colours; default when stdout is a terminal. */
  readonly color?: boolean;
  readonly now?: () => number;
}

const CODES = { dim: 2, bold: 1, red: 31, green: 32, yellow: 33, blue: 34, magenta: 35, cyan: 36 } as const;
type Color = keyof typeof CODES;

export class Trace {
  private readonly write: (line: string) => void;
  private readonly color: boolean;
  private readonly now: () => number;
  private readonly start: number;

  constructor(options: TraceOptions = {}) {
    this.write = options.write ?? ((line) => console.log(line));
    this.color = options.color ?? process.stdout.isTTY === true;
    this.now = options.now ?? Date.now;
    this.start = this.now();
  }

  /** A scenario step or a note. */
  step(text: string): void {
    this.line('', this.paint('bold', `── ${text}`));
  }

  /** A pod event from the informer. */
  pod(event: InformerEvent<Pod>): void {
    const pod = objectOf(event);
    if (pod === undefined) return;
    const owner = ownerRefs.controllerOf(pod)?.name;
    const ready = conditions.isTrue(conditions.of(pod), 'Ready');
    const state = pod.metadata?.deletionTimestamp !== undefined ? 'Terminating' : `${pod.status?.phase ?? 'Pending'}${ready ? ',Ready' : ''}`;
    const what = `${verb(event)} pod ${pod.metadata?.name ?? '?'}`;
    this.line(this.paint('cyan', '◂ event'), `${what.padEnd(34)} ${state.padEnd(14)} ${owner === undefined ? this.paint('yellow', 'orphan') : `owner=${owner}`}`);
  }

  /** A ReplicaSet event from the informer. */
  replicaSet(event: InformerEvent<ReplicaSet>): void {
    const rs = objectOf(event);
    if (rs === undefined) return;
    const s = rs.status;
    const counts = `spec=${rs.spec?.replicas ?? 1} status=${s?.replicas ?? 0}/${s?.readyReplicas ?? 0}/${s?.availableReplicas ?? 0}`;
    this.line(this.paint('cyan', '◂ event'), `${`${verb(event)} rs ${rs.metadata?.name ?? '?'}`.padEnd(34)} ${counts}`);
  }

  /** One sync of the controller. */
  sync(r: ReplicaSetSyncReport): void {
    const ms = `${r.durationMs.toFixed(1)}ms`.padStart(8);
    const head = `${this.paint('magenta', '⟳ sync ')} ${r.key.padEnd(20)} ${ms}`;
    if (r.kind === 'gone') return this.line(head, this.paint('dim', 'gone, expectations forgotten'));
    if (r.kind === 'error') return this.line(head, this.paint('red', `error: ${r.error instanceof Error ? r.error.message : String(r.error)} (retried with backoff)`));
    const parts: string[] = [];
    if (r.kind === 'waiting') parts.push(this.paint('yellow', `waiting for own writes (${r.pending?.creations ?? 0} creates, ${r.pending?.deletions ?? 0} deletes unseen)`));
    if ((r.adopted ?? []).length > 0) parts.push(this.paint('blue', `adopted ${(r.adopted ?? []).join(' ')}`));
    if ((r.released ?? []).length > 0) parts.push(this.paint('blue', `released ${(r.released ?? []).join(' ')}`));
    const c = r.changes;
    if (c !== undefined && c.created.length > 0) parts.push(this.paint('green', `created ${c.created.length} in batches [${c.batches.join(',')}]`));
    if (c !== undefined && c.deleted.length > 0) parts.push(this.paint('red', `deleted ${c.deleted.join(' ')}`));
    const s = r.status;
    if (s !== undefined) {
      const done = s.replicas === r.want && s.readyReplicas === r.want && s.availableReplicas === r.want;
      const counts = `want ${r.want} have ${s.replicas} ready ${s.readyReplicas ?? 0} available ${s.availableReplicas ?? 0}`;
      parts.push(done ? this.paint('green', `${counts} ✓`) : counts);
    }
    if (r.statusWritten === true) parts.push(this.paint('dim', 'status written'));
    if (r.requeueAfter !== undefined) parts.push(this.paint('yellow', `requeue in ${r.requeueAfter}ms (minReadySeconds)`));
    this.line(head, parts.join(' · '));
  }

  private line(tag: string, text: string): void {
    const t = `+${((this.now() - this.start) / 1000).toFixed(3)}s`.padStart(9);
    this.write(`${this.paint('dim', t)}  ${tag} ${text}`.trimEnd());
  }

  private paint(color: Color, text: string): string {
    return this.color ? `\u001b[${CODES[color]}m${text}\u001b[0m` : text;
  }
}

function verb(event: InformerEvent): string {
  return event.type === 'add' ? 'ADDED   ' : event.type === 'update' ? 'MODIFIED' : 'DELETED ';
}
