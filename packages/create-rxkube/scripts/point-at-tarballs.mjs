// Points a generated project's rxkube packages at packed tarballs (pack-workspace.sh's
// tarballs.json) instead of the registry, as if they were published; the rest still comes from
// the registry. Usage: node point-at-tarballs.mjs PROJECT/package.json DEST/tarballs.json
import { readFileSync, writeFileSync } from 'node:fs';
import process from 'node:process';

const [file, tarballsFile] = process.argv.slice(2);
if (file === undefined || tarballsFile === undefined) {
  process.stderr.write('usage: point-at-tarballs.mjs PROJECT/package.json DEST/tarballs.json\n');
  process.exit(2);
}
const tarballs = JSON.parse(readFileSync(tarballsFile, 'utf8'));
const at = (name) => {
  if (typeof tarballs[name] !== 'string') throw new Error(`${tarballsFile} has no tarball for ${name}`);
  return `file:${tarballs[name]}`;
};
const app = JSON.parse(readFileSync(file, 'utf8'));
app.dependencies.rxkube = at('rxkube');
app.devDependencies['@rxkube/testkit'] = at('@rxkube/testkit');
app.devDependencies['@rxkube/codegen'] = at('@rxkube/codegen');
// The test kit depends on the controller manager at the same version: take it from its tarball too.
app.overrides = { '@rxkube/controller-manager': at('@rxkube/controller-manager'), rxkube: at('rxkube') };
writeFileSync(file, `${JSON.stringify(app, null, 2)}\n`);
