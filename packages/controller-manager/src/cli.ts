/**
 * `rxkube-controller-manager`: runs the lifecycle controllers against a cluster named by a
 * kubeconfig (the embedded API server's, or a kube-apiserver that runs no controllers of its own).
 */
import { parseArgs } from 'node:util';
import { jsonLogger, KubeClient, noopLogger, setupSignalHandler } from 'rxkube';
import { ALL_CONTROLLERS, startControllerManager, type ControllerName } from './controller-manager.js';

const USAGE = `rxkube-controller-manager: kube-controller-manager's lifecycle controllers, written with rxkube.

Usage: rxkube-controller-manager [--kubeconfig PATH] [--controllers a,b] [--stand-in-nodes N]
                                 [--leader-elect] [--verbose]

  --kubeconfig PATH     cluster to manage (default: KUBECONFIG, then ~/.kube/config)
  --controllers LIST    comma-separated subset of: ${ALL_CONTROLLERS.join(', ')} (default: all)
  --stand-in-nodes N    register N fake nodes and run a stand-in scheduler and kubelet for them
                        (pods get bound, Running and Ready; for servers without nodes)
  --leader-elect        elect a leader through the Lease kube-system/rxkube-controller-manager
  --verbose             log as JSON lines on stderr

Runs until SIGINT or SIGTERM.`;

/** Runs the command line; resolves when stopped. */
export async function main(argv: readonly string[]): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: {
        kubeconfig: { type: 'string' },
        controllers: { type: 'string' },
        'stand-in-nodes': { type: 'string' },
        'leader-elect': { type: 'boolean' },
        verbose: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
      allowPositionals: false,
    }));
  } catch (e) {
    process.stderr.write(`${(e as Error).message}\n\n${USAGE}\n`);
    return 2;
  }
  if (values.help === true) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const names = values.controllers?.split(',').map((s) => s.trim()).filter((s) => s !== '');
  const unknown = names?.find((n) => !(ALL_CONTROLLERS as readonly string[]).includes(n));
  if (unknown !== undefined) {
    process.stderr.write(`rxkube-controller-manager: unknown controller "${unknown}"\n\n${USAGE}\n`);
    return 2;
  }
  const nodes = values['stand-in-nodes'];
  if (nodes !== undefined && !/^\d+$/.test(nodes)) {
    process.stderr.write(`rxkube-controller-manager: --stand-in-nodes needs a number, got "${nodes}"\n`);
    return 2;
  }
  const client = values.kubeconfig !== undefined ? KubeClient.fromFile(values.kubeconfig) : KubeClient.fromDefault();
  const signals = setupSignalHandler();
  try {
    const running = await startControllerManager({
      client,
      ...(names === undefined ? {} : { controllers: names as ControllerName[] }),
      ...(nodes === undefined ? {} : { standInNodes: Number(nodes) }),
      leaderElection: values['leader-elect'] === true,
      logger: values.verbose === true ? jsonLogger() : noopLogger,
    });
    await running.synced;
    process.stdout.write(`rxkube-controller-manager running: ${(names ?? ALL_CONTROLLERS).join(', ')}${nodes !== undefined ? `, ${nodes} stand-in node(s)` : ''}\n`);
    await new Promise<void>((resolve) => signals.signal.addEventListener('abort', () => resolve(), { once: true }));
    await running.stop();
    return 0;
  } catch (e) {
    process.stderr.write(`rxkube-controller-manager: ${(e as Error).message}\n`);
    return 1;
  } finally {
    signals.dispose();
    client.close();
  }
}
