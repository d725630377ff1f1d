/* global console, process */
// The consumer's operator files are written as a new TypeScript user would from the README:
// no type assertion (`as T`, `<T>x`), no non-null assertion (`x!`), no `any`. Reads each file
// given with the consumer project's own TypeScript; exits 1 listing every one found.
// Usage: node check-no-casts.mjs file.ts …
import fs from 'node:fs';
import ts from 'typescript';

const found = [];
for (const file of process.argv.slice(2)) {
  const source = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const visit = (node) => {
    const what = ts.isAsExpression(node) && !(ts.isTypeReferenceNode(node.type) && node.type.getText(source) === 'const')
      ? 'a cast (as)'
      : ts.isTypeAssertionExpression(node)
        ? 'a cast (<T>)'
        : ts.isNonNullExpression(node)
          ? 'a non-null assertion (!)'
          : node.kind === ts.SyntaxKind.AnyKeyword
            ? '`any`'
            : undefined;
    if (what !== undefined) {
      const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
      found.push(`${file}:${line + 1}: ${what}: ${node.getText(source)}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
}
if (found.length > 0) {
  console.error(`consumer-test: the operator files must compile without casts, \`!\` or \`any\`:\n${found.join('\n')}`);
  process.exit(1);
}
console.log(`no casts, \`!\` or \`any\` in ${process.argv.length - 2} files`);
