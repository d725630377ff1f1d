/**
 * A stand-in for the outside system the controller provisions into (a cloud database service).
 * Nothing in Kubernetes garbage-collects it: that is what the finalizer is for.
 */
export class Provisioner {
  private readonly instances = new Map<string, { readonly team: string; readonly sizeGi: number }>();

  /** Creates or resizes the instance for `id`; returns its endpoint. Idempotent. */
  ensure(id: string, team: string, sizeGi: number): string {
    this.instances.set(id, { team, sizeGi });
    return `${id.replace('/', '.')}.db.example.com:5432`;
  }

  /** Removes the instance for `id`, if any. Idempotent. */
  release(id: string): void {
    this.instances.delete(id);
  }

  /** Ids of the instances that exist now, sorted. */
  list(): string[] {
    return [...this.instances.keys()].sort();
  }
}
