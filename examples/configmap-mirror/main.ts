// Runs the mirror on the cluster of KUBECONFIG (or in-cluster): tsx main.ts --from source --to mirror
import { parseArgs } from 'node:util';
import { InformerFactory, KubeClient, manager, setupSignalHandler } from 'rxkube';
import { configMapMirror } from './mirror-controller.js';

const flag = (value: string) => ({ type: 'string', default: value }) as const;
const { values } = parseArgs({ options: { from: flag('source'), to: flag('mirror'), selector: flag('mirror=true') } });
const client = KubeClient.fromDefault();
const informers = new InformerFactory(client);
const mgr = manager({ client });
mgr.add(informers.runnable());
mgr.add(configMapMirror({ client, informers, ...values }));
await mgr.start(setupSignalHandler().signal);
