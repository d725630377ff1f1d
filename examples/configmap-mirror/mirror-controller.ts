// Copies the ConfigMaps of namespace `from` matching `selector` into `to`; deletes copies whose source is gone.
import type { SchedulerLike } from 'rxjs';
import { controller, informerSource, resources, type InformerFactory, type KubeClient } from 'rxkube';

export const FROM = 'mirror.example.com/from'; // the label of every copy: the namespace it came from

export interface MirrorOptions {
  readonly client: KubeClient;
  readonly informers: InformerFactory;
  readonly from: string;
  readonly to: string;
  readonly selector?: string; // default `mirror=true`
  readonly scheduler?: SchedulerLike;
}

export function configMapMirror({ client, informers, from, to, selector = 'mirror=true', scheduler }: MirrorOptions) {
  const sources = informers.for(resources.configMaps, { namespace: from, labelSelector: selector });
  const copies = informers.for(resources.configMaps, { namespace: to, labelSelector: `${FROM}=${from}` });
  return controller({
    name: `configmap-mirror-${from}-${to}`,
    for: informerSource(sources),
    watches: [{ source: informerSource(copies), map: (copy) => [{ namespace: from, name: copy.metadata.name }] }],
    client,
    scheduler,
    reconcile: async ({ name }, ctx) => {
      const target = ctx.objects(resources.configMaps, to);
      const source = ctx.object;
      if (source !== undefined) {
        await target.apply({ metadata: { name, labels: { [FROM]: from } }, data: source.data, binaryData: source.binaryData }, { force: true, signal: ctx.signal });
      } else if (copies.store.has(`${to}/${name}`)) {
        await target.delete(name, { ignoreNotFound: true, signal: ctx.signal });
      }
    },
  });
}
