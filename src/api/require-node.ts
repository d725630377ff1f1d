// Imported first by each entry (`rxkube`, `rxkube/operators`, `rxkube/testing`): on a Node.js older
// than package.json's `engines` (>= 22.19, what @kubernetes/client-node 2.x and its undici need),
// the import fails here, naming both versions, instead of crashing deep inside a dependency.

const REQUIRED = { major: 22, minor: 19 };

const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
if (major < REQUIRED.major || (major === REQUIRED.major && minor < REQUIRED.minor)) {
  throw new Error(
    `rxkube requires Node.js >= ${REQUIRED.major}.${REQUIRED.minor}.0; this is Node.js ${process.version} (${process.execPath}). ` +
      'Upgrade Node.js (e.g. to 24 LTS).',
  );
}
