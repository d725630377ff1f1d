// Rewrites `export * from './x.js'` in the given files into explicit export lists.
import ts from 'typescript';
import fs from 'node:fs';
import path from 'node:path';
const files = process.argv.slice(2).map((f) => path.resolve(f));
const program = ts.createProgram(files, { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, target: ts.ScriptTarget.ES2022, customConditions: ['source'], allowImportingTsExtensions: false });
const checker = program.getTypeChecker();
for (const file of files) {
  const sf = program.getSourceFile(file)!;
  let text = sf.getFullText();
  const edits: [number, number, string][] = [];
  for (const st of sf.statements) {
    if (!ts.isExportDeclaration(st) || st.exportClause || !st.moduleSpecifier) continue;
    const sym = checker.getSymbolAtLocation(st.moduleSpecifier);
    if (!sym) { console.error('unresolved', st.getText()); continue; }
    const exps = checker.getExportsOfModule(sym);
    const values: string[] = []; const types: string[] = [];
    for (const e of exps) {
      const t = e.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(e) : e;
      if (t.flags & ts.SymbolFlags.Value) values.push(e.name); else types.push(e.name);
    }
    const spec = (st.moduleSpecifier as ts.StringLiteral).text;
    const fmt = (kw: string, names: string[]) => names.length ? `export ${kw}{\n  ${names.sort().join(',\n  ')},\n} from '${spec}';` : '';
    const out = [fmt('', values), fmt('type ', types)].filter(Boolean).join('\n');
    edits.push([st.getStart(), st.getEnd(), out]);
  }
  for (const [s, e, r] of edits.reverse()) text = text.slice(0, s) + r + text.slice(e);
  fs.writeFileSync(file, text);
}
