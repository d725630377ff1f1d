/**
 * A small operator as a new user writes it from the README: mirrors ConfigMaps. A ConfigMap named
 * in the `mirror-settings` ConfigMap's data (`<name>: "on"`) gets a copy `<name>-mirror` in its
 * namespace, owned by it (a controller owner reference) and labelled with its source's name; a
 * copy whose source is gone or no longer named is deleted. No casts, no `!`, no `any`: the
 * consumer test type-checks it strictly and checks that (check-no-casts.mjs).
 */
import type { SchedulerLike } from 'rxjs';
import { controller, informerSource, type Controller, type InformerFactory, type KubeClient } from 'rxkube';

/** The ConfigMap whose data names the ConfigMaps to mirror. */
export const SETTINGS = 'mirror-settings';
/** The label of every copy: the name of the ConfigMap it copies. */
export const MIRROR_OF = 'consumer.example/mirror-of';
export const MIRROR_SUFFIX = '-mirror';

export interface MirrorOptions {
  readonly informers: InformerFactory;
  readonly client: KubeClient;
  readonly scheduler?: SchedulerLike;
}

export function mirrorController({ informers, client, scheduler }: MirrorOptions): Controller {
  const configMaps = informerSource(informers.configMaps());
  return controller({
    name: 'configmap-mirror',
    for: configMaps,
    // A copy's events wake its source (its controller owner); only copies are of interest.
    owns: [{ source: configMaps, filter: (cm) => cm.metadata.labels?.[MIRROR_OF] !== undefined }],
    // The settings name the sources: a change wakes each one named before or after it.
    watches: [
      {
        source: configMaps,
        map: (cm) => (cm.metadata.name === SETTINGS ? Object.keys(cm.data ?? {}).map((name) => ({ namespace: cm.metadata.namespace ?? 'default', name })) : []),
      },
    ],
    client,
    ...(scheduler === undefined ? {} : { scheduler }),
    reconcile: async (request, ctx) => {
      const namespace = request.namespace ?? 'default';
      const copyName = `${request.name}${MIRROR_SUFFIX}`;
      const source = ctx.object;
      const settings = ctx.storeOf(configMaps).get(`${namespace}/${SETTINGS}`);
      const copy = ctx.store.get(`${namespace}/${copyName}`);
      if (source === undefined || source.metadata.labels?.[MIRROR_OF] !== undefined || settings?.data?.[source.metadata.name] !== 'on') {
        if (copy !== undefined) {
          ctx.logger.info('deleting a copy whose source is gone or not named', { copy: copy.metadata.name });
          await ctx.objects().delete(copyName, { ignoreNotFound: true, signal: ctx.signal });
        }
        return;
      }
      await ctx.objects().apply(
        {
          metadata: {
            name: copyName,
            labels: { [MIRROR_OF]: source.metadata.name },
            ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: source.metadata.name, uid: source.metadata.uid, controller: true }],
          },
          data: source.data ?? {},
        },
        { force: true, signal: ctx.signal },
      );
    },
  });
}
