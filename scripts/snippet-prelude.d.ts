// The context the documentation's snippets assume (checked by scripts/check-snippets.mjs): what a
// snippet uses but neither declares nor imports from a public entry is declared here, once for
// all of them. A snippet that declares a name of its own shadows the one here. Keep it to what the
// surrounding prose introduces (a client, an informer factory, the reconcile's `ctx`, the example
// resource `Widget`, the examples' helpers); a misspelt or removed public name must not be here.

/** The example custom resource of the docs (examples/custom-resource has the full one). */
type Widget = import('rxkube').KubeObject & {
  readonly apiVersion?: 'example.com/v1';
  readonly kind?: 'Widget';
  spec: { rules: string[]; team?: string };
  status?: { phase?: string; observedGeneration?: number | undefined; conditions?: import('rxkube').Condition[] };
};
/**
 * Checks a snippet made of controller option members (`reconcile: async (req, ctx) => { … },`)
 * as the options of a `Widget` controller, its `watches` and `owns` typed by their sources.
 */
declare function snippetControllerOptions<
  const W extends readonly import('rxkube').KubeObject[] = readonly import('rxkube').KubeObject[],
  const O extends readonly import('rxkube').KubeObject[] = readonly import('rxkube').KubeObject[],
>(options: Partial<import('rxkube').ControllerOptions<Widget, W, O>>): void;

declare const WIDGETS: import('rxkube').ResourceType<Widget>;
declare const widget: Widget;
declare const client: import('rxkube').KubeClient;
declare const eastClient: import('rxkube').KubeClient;
declare const westClient: import('rxkube').KubeClient;
declare const westInformers: import('rxkube').InformerFactory;
declare const informers: import('rxkube').InformerFactory;
declare const ctx: import('rxkube').ReconcileContext<Widget>;
declare const ctrl: import('rxkube').Controller;
declare const signal: AbortSignal;
declare const scheduler: import('rxjs').SchedulerLike;
declare const ns: string;
declare const pod: import('rxkube').K8s.Pod;
declare const replicaSet: import('rxkube').K8s.ReplicaSet;
declare const desired: import('rxkube').ApplyConfiguration<Widget>;
declare const configMapInformer: import('rxkube').SharedInformer<import('rxkube').K8s.ConfigMap>;
declare const url: string;
declare const manifestYaml: string;

// Helpers the examples define.
declare const ttlController: typeof import('../examples/marble-test/ttl-controller.js').ttlController;
declare const expiryController: typeof import('../examples/marble-test/expiry-controller.js').expiryController;
declare function configMap(name: string, expiresAt?: number, resourceVersion?: string): import('rxkube').K8s.ConfigMap;
declare function outcome(o: import('rxkube').ReconcileOutcome): string;
declare function orphanToMatchingReplicaSets(pod: import('rxkube').K8s.Pod): import('rxkube').Request[];
declare function handle(...objects: unknown[]): void;
declare const configMapMirror: typeof import('../examples/configmap-mirror/mirror-controller.js').configMapMirror;
// The custom resource example's webhooks (examples/custom-resource/database-webhooks.ts).
type DatabaseV1 = import('../examples/custom-resource/database.generated.js').DatabaseV1;
type DatabaseV2 = import('../examples/custom-resource/database.generated.js').DatabaseV2;
declare const DATABASES: typeof import('../examples/custom-resource/database.generated.js').DATABASES;
declare const DATABASES_V1: typeof import('../examples/custom-resource/database.generated.js').DATABASES_V1;
declare const v1ToV2: typeof import('../examples/custom-resource/database-webhooks.js').v1ToV2;
declare const v2ToV1: typeof import('../examples/custom-resource/database-webhooks.js').v2ToV1;
declare const defaultDatabase: typeof import('../examples/custom-resource/database-webhooks.js').defaultDatabase;
declare const validateDatabase: typeof import('../examples/custom-resource/database-webhooks.js').validateDatabase;
declare const convertDatabases: typeof import('../examples/custom-resource/database-webhooks.js').convertDatabases;
// The browser page's own helpers (docs/browser.md).
declare function render(objects: readonly unknown[]): void;
declare function flash(event: unknown): void;
declare const session: { token(): string };
declare function log(...values: unknown[]): void;

// client-node, for the comparison with it.
declare const kc: import('@kubernetes/client-node').KubeConfig;
declare const core: import('@kubernetes/client-node').CoreV1Api;
declare const makeInformer: typeof import('@kubernetes/client-node').makeInformer;

// Further context of the TSDoc examples.
declare const reconcile: import('rxkube').ControllerReconciler<Widget>;
declare const db: Widget;
declare const name: string;
declare const cached: import('rxkube/api').Cached<import('rxkube').K8s.ConfigMap>;
declare const configMaps: import('rxkube').ObjectClient<import('rxkube').K8s.ConfigMap>;
declare const informer: import('rxkube').SharedInformer<Widget>;
declare const crds: import('rxkube').SharedInformer<import('rxkube').KubeObject & { status?: { conditions?: import('rxkube').Condition[] } }>;
declare const podsListWatcher: import('rxkube').ListWatcher<import('rxkube').K8s.Pod>;
declare function apply(event: unknown): void;
declare function selectorMatches(pod: import('rxkube').K8s.Pod): boolean;
declare function ensureConfigMap(...args: [configMaps: import('rxkube').ObjectClient<import('rxkube').K8s.ConfigMap>, widget: Widget] | [widget: Widget]): Promise<void>;
declare function deleteConfigMap(widget: Widget): Promise<void>;
declare const namespace: string;
declare const orphan: import('rxkube').K8s.ConfigMap;
declare const cms: import('rxkube').SharedInformer<import('rxkube').K8s.ConfigMap>;

// The README's stream examples (examples/rollout-progress.ts has them in full).
declare const nodes: import('rxkube').SharedInformer<import('rxkube').K8s.Node>;
declare const pods: import('rxkube').SharedInformer<import('rxkube').K8s.Pod>;
declare const deployments: import('rxkube').SharedInformer<import('../examples/rollout-progress.js').Deployment>;
declare const replicaSets: import('rxkube').SharedInformer<import('../examples/rollout-progress.js').ReplicaSet>;
declare const progressOf: typeof import('../examples/rollout-progress.js').progressOf;
declare function sameProgress(a: import('../examples/rollout-progress.js').Progress, b: import('../examples/rollout-progress.js').Progress): boolean;
declare function stalled(p: import('../examples/rollout-progress.js').Progress): import('../examples/rollout-progress.js').Progress;
declare const deadlineMs: number;
declare function tableOf(nodes: readonly import('rxkube').K8s.Node[], pods: readonly import('rxkube').K8s.Pod[]): string;

// Context of the other TSDoc fences.
declare const mgr: import('rxkube').Manager;
declare const shard: string;
declare const events$: import('rxkube').InformerSource<import('rxkube').K8s.ConfigMap>;
declare const myController: typeof import('../examples/marble-test/expiry-controller.js').expiryController;
declare function sync(cluster: string | undefined, client: import('rxkube').KubeClient | undefined): Promise<void>;
declare function sweep(signal: AbortSignal, ...context: unknown[]): Promise<void>;
declare const m: import('rxjs-marbles').Context;
declare function podNamed(name: string): import('rxkube').K8s.Pod;
declare function cm(name: string): import('rxkube').K8s.ConfigMap;
declare function podsPerNode(nodes: import('rxkube').SharedInformer<import('rxkube').K8s.Node>, pods: import('rxkube').SharedInformer<import('rxkube').K8s.Pod>): import('rxjs').Observable<number>;
