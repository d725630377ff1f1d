// Gives each Widget one snapshot ConfigMap, named by the server (`generateName`), so nothing but
// the cache says whether it exists. Read-your-writes (on by default) makes the Widget's next
// reconcile wait until the cache shows the snapshot it created: no second snapshot.
import { controller, informerSource, ownerRefs, resources, type Controller, type InformerFactory, type KubeClient } from 'rxkube';
import { ownerUidIndex } from 'rxkube/controller';
import { WIDGETS, type Widget } from './widget.js';

export function widgetSnapshotController(client: KubeClient, informers: InformerFactory, readYourWrites = true): Controller<Widget> {
  const snapshots = informers.configMaps().withIndex('owner', ownerUidIndex);
  return controller({
    name: 'widget-snapshot',
    for: WIDGETS,
    owns: [informerSource(snapshots)],
    client,
    informers,
    readYourWrites, // true is the default (timeout 10 s); false reads the cache as it is, as controller-runtime does
    reconcile: async (request, ctx) => {
      const widget = ctx.object;
      if (widget === undefined) return;
      if (snapshots.by('owner').list(widget.metadata.uid).length > 0) return; // it has its snapshot
      const snapshot = ownerRefs.setControllerReference(
        widget,
        { metadata: { generateName: `${request.name}-`, namespace: request.namespace }, data: { size: String(widget.spec.size) } },
        { type: WIDGETS },
      );
      await ctx.objects(resources.configMaps, request.namespace).create(snapshot, { signal: ctx.signal });
    },
  });
}
