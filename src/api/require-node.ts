// Imported first by each entry (`rxkube`, `rxkube/operators`, `rxkube/testing`): on a Node.js older
// than package.json's `engines` (>= 22.19, what @kubernetes/client-node 2.x and its undici need),
// the import fails here, naming both versions, instead of crashing deep inside a dependency.
// Outside Node.js (a browser importing `rxkube/browser` or `rxkube/operators`) there is nothing to
// check: `process` is read from `globalThis`, so a bundler sees no reference to it.

const REQUIRED = { major: 22, minor: 19 };

const nodeProcess = (globalThis as { process?: { versions?: { node?: string }; version?: string; execPath?: string } }).process;
const nodeVersion = nodeProcess?.versions?.node;

if (nodeVersion !== undefined) {
  const [major = 0, minor = 0] = nodeVersion.split('.').map(Number);
  if (major < REQUIRED.major || (major === REQUIRED.major && minor < REQUIRED.minor)) {
    throw new Error(
      `rxkube requires Node.js >= ${REQUIRED.major}.${REQUIRED.minor}.0; this is Node.js ${nodeProcess?.version} (${nodeProcess?.execPath}). ` +
        'Upgrade Node.js (e.g. to 24 LTS).',
    );
  }
}
