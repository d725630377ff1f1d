// usage: tsx _rename.mts file.ts:InterfaceName.prop=newProp ...
import ts from 'typescript';
import fs from 'node:fs';
import path from 'node:path';
const cfgPath = path.resolve('tsconfig.json');
const cfg = ts.parseJsonConfigFileContent(ts.readConfigFile(cfgPath, ts.sys.readFile).config, ts.sys, path.dirname(cfgPath));
const files = new Map<string, { v: number; text: string }>();
for (const f of cfg.fileNames) files.set(path.resolve(f), { v: 0, text: fs.readFileSync(f, 'utf8') });
const host: ts.LanguageServiceHost = {
  getScriptFileNames: () => [...files.keys()],
  getScriptVersion: (f) => String(files.get(path.resolve(f))?.v ?? 0),
  getScriptSnapshot: (f) => { const e = files.get(path.resolve(f)); const t = e ? e.text : ts.sys.readFile(f); return t === undefined ? undefined : ts.ScriptSnapshot.fromString(t); },
  getCurrentDirectory: () => process.cwd(), getCompilationSettings: () => cfg.options,
  getDefaultLibFileName: (o) => ts.getDefaultLibFilePath(o), fileExists: ts.sys.fileExists, readFile: ts.sys.readFile, readDirectory: ts.sys.readDirectory,
};
const ls = ts.createLanguageService(host);
for (const arg of process.argv.slice(2)) {
  const [loc, newName] = arg.split('=');
  const [file, member] = loc!.split(':');
  const [iface, prop] = member!.split('.');
  const abs = path.resolve(file!);
  const sf = ls.getProgram()!.getSourceFile(abs)!;
  let pos = -1;
  const visit = (n: ts.Node): void => {
    if ((ts.isInterfaceDeclaration(n) || ts.isClassDeclaration(n) || ts.isTypeAliasDeclaration(n)) && n.name?.text === iface) {
      const find = (m: ts.Node): void => { if ((ts.isPropertySignature(m) || ts.isPropertyDeclaration(m)) && m.name.getText() === prop && pos < 0) pos = m.name.getStart(); ts.forEachChild(m, find); };
      find(n);
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  if (pos < 0) { console.error('not found', arg); continue; }
  const locs = ls.findRenameLocations(abs, pos, false, false, { providePrefixAndSuffixTextForRename: true }) ?? [];
  const byFile = new Map<string, ts.RenameLocation[]>();
  for (const l of locs) byFile.set(l.fileName, [...(byFile.get(l.fileName) ?? []), l]);
  for (const [f, ls2] of byFile) {
    const e = files.get(path.resolve(f))!;
    let t = e.text;
    for (const l of ls2.sort((a, b) => b.textSpan.start - a.textSpan.start)) t = t.slice(0, l.textSpan.start) + (l.prefixText ?? '') + newName + (l.suffixText ?? '') + t.slice(l.textSpan.start + l.textSpan.length);
    e.text = t; e.v++;
    fs.writeFileSync(f, t);
  }
  console.log(arg, locs.length, 'locations in', byFile.size, 'files');
}
