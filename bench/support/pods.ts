/**
 * Realistic pod fixtures for the benchmarks: about 3 KB of JSON each, shaped like pods a
 * ReplicaSet creates on a real cluster (labels, annotations, owner reference, one container with
 * env, probe and resources, conditions, container status) and with `managedFields` from the two
 * writers every such pod has (kube-controller-manager on create, the kubelet on status), about a
 * third of the JSON.
 */
import type { UnstructuredObject } from '../../src/api/kube-object.js';

const NAMESPACES = 50;

function hex(i: number, width: number): string {
  return (i >>> 0).toString(16).padStart(width, '0').slice(-width);
}

/** A ~3 KB pod number `i` (distinct name, uid and IPs), at generation `gen` (changes a label and an annotation). */
export function realisticPod(i: number, gen = 0): UnstructuredObject {
  const app = `app-${i % 100}`;
  const hash = hex(i * 2654435761, 10);
  const name = `${app}-${hash}-${hex(i, 5)}`;
  const ts = '2026-01-01T00:00:00Z';
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      generateName: `${app}-${hash}-`,
      namespace: `ns-${i % NAMESPACES}`,
      uid: `${hex(i, 8)}-7e7e-4c8b-9a8e-${hex(i * 31, 12)}`,
      creationTimestamp: ts,
      labels: { app, tier: 'backend', 'pod-template-hash': hash, generation: String(gen) },
      annotations: {
        'prometheus.io/scrape': 'true',
        'prometheus.io/port': '9090',
        'kubectl.kubernetes.io/restartedAt': `2026-01-01T00:00:${String(gen % 60).padStart(2, '0')}Z`,
      },
      ownerReferences: [
        { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: `${app}-${hash}`, uid: `${hex(i % 100, 8)}-1111-4c8b-9a8e-000000000000`, controller: true, blockOwnerDeletion: true },
      ],
      managedFields: [
        {
          manager: 'kube-controller-manager',
          operation: 'Update',
          apiVersion: 'v1',
          time: ts,
          fieldsType: 'FieldsV1',
          fieldsV1: {
            'f:metadata': {
              'f:generateName': {},
              'f:labels': { '.': {}, 'f:app': {}, 'f:pod-template-hash': {}, 'f:tier': {} },
              'f:ownerReferences': { '.': {}, [`k:{"uid":"${hex(i % 100, 8)}-1111-4c8b-9a8e-000000000000"}`]: {} },
            },
            'f:spec': {
              'f:containers': {
                'k:{"name":"main"}': {
                  '.': {},
                  'f:image': {},
                  'f:imagePullPolicy': {},
                  'f:name': {},
                  'f:ports': { '.': {}, 'k:{"containerPort":8080,"protocol":"TCP"}': { '.': {}, 'f:containerPort': {}, 'f:protocol': {} } },
                  'f:resources': { '.': {}, 'f:limits': { '.': {}, 'f:cpu': {}, 'f:memory': {} }, 'f:requests': { '.': {}, 'f:cpu': {}, 'f:memory': {} } },
                },
              },
              'f:dnsPolicy': {},
              'f:restartPolicy': {},
              'f:serviceAccountName': {},
            },
          },
        },
        {
          manager: 'kubelet',
          operation: 'Update',
          apiVersion: 'v1',
          time: ts,
          fieldsType: 'FieldsV1',
          subresource: 'status',
          fieldsV1: {
            'f:status': {
              'f:conditions': {
                'k:{"type":"Ready"}': { '.': {}, 'f:status': {}, 'f:type': {} },
              },
              'f:containerStatuses': {},
              'f:hostIP': {},
              'f:phase': {},
              'f:podIP': {},
              'f:startTime': {},
            },
          },
        },
      ],
    },
    spec: {
      nodeName: `node-${i % 200}`,
      serviceAccountName: 'default',
      restartPolicy: 'Always',
      dnsPolicy: 'ClusterFirst',
      schedulerName: 'default-scheduler',
      terminationGracePeriodSeconds: 30,
      containers: [
        {
          name: 'main',
          image: 'registry.example.com/team/app:1.24.3',
          imagePullPolicy: 'IfNotPresent',
          ports: [{ containerPort: 8080, protocol: 'TCP' }],
          env: [
            { name: 'LOG_LEVEL', value: 'info' },
            { name: 'POD_NAME', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.name' } } },
          ],
          resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { cpu: '500m', memory: '256Mi' } },
          readinessProbe: { httpGet: { path: '/healthz', port: 8080, scheme: 'HTTP' }, periodSeconds: 10 },
        },
      ],
    },
    status: {
      phase: 'Running',
      podIP: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`,
      hostIP: `192.168.${(i % 200) >> 8}.${i % 200}`,
      startTime: ts,
      qosClass: 'Burstable',
      conditions: ['Initialized', 'Ready', 'ContainersReady', 'PodScheduled'].map((type) => ({ type, status: 'True', lastProbeTime: null, lastTransitionTime: ts })),
      containerStatuses: [
        {
          name: 'main',
          ready: true,
          started: true,
          restartCount: 0,
          image: 'registry.example.com/team/app:1.24.3',
          imageID: `registry.example.com/team/app@sha256:${hex(i, 8)}${'0123456789abcdef'.repeat(3)}${hex(i * 7, 8)}`,
          containerID: `containerd://${hex(i * 13, 8)}${'fedcba9876543210'.repeat(3)}${hex(i, 8)}`,
          state: { running: { startedAt: ts } },
        },
      ],
    },
  };
}
