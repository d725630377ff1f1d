import { readdir, readFile } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { createInterface } from 'node:readline/promises';
import { parseArgs } from 'node:util';
import { checkProjectName, parseVersions } from './names.js';
import { ScaffoldError } from './scaffold-error.js';
import { addKind, createProject } from './scaffold.js';

const USAGE = `create-rxkube: start a Kubernetes operator with rxkube.

Usage: npm create rxkube@latest [DIR] -- [--group G] [--kind K] [--versions V1,V2] [--yes]
       npx create-rxkube [DIR] [--group G] [--kind K] [--versions V1,V2] [--yes]
       npx create-rxkube api --kind K [--group G] [--versions V1,V2]      (inside a project)

  DIR                 the new project's folder (its name is the package's); asked when absent
  --group G           API group of the custom resource (default example.com, or the project's)
  --kind K            its kind, PascalCase (default Widget; required for \`api\`)
  --versions V1,V2    served versions, the first stored (default v1); --version is the same
  --yes, -y           ask nothing: defaults for whatever is not given`;

/** Where the CLI reads answers and writes text; the process's streams by default. */
export interface CliIo {
  readonly out: (text: string) => void;
  readonly err: (text: string) => void;
  /** Asks a question; absent when nothing can be asked (not a terminal, or --yes). */
  readonly ask?: (question: string, fallback: string) => Promise<string>;
  readonly cwd: string;
}

function terminalIo(): CliIo {
  const io: CliIo = { out: (t) => process.stdout.write(t), err: (t) => process.stderr.write(t), cwd: process.cwd() };
  if (process.stdin.isTTY !== true) return io;
  return {
    ...io,
    ask: async (question, fallback) => {
      const rl = createInterface({ input: process.stdin, output: process.stdout });
      try {
        const answer = (await rl.question(`${question} (${fallback}): `)).trim();
        return answer === '' ? fallback : answer;
      } finally {
        rl.close();
      }
    },
  };
}

/** The group of the first CRD of a project (from its crds/ folder), for `api` without --group. */
async function projectGroup(dir: string): Promise<string | undefined> {
  const files = (await readdir(join(dir, 'crds')).catch(() => [])).filter((f) => f.endsWith('.yaml')).sort();
  const first = files[0];
  if (first === undefined) return undefined;
  return /^\s+group:\s*(\S+)\s*$/m.exec(await readFile(join(dir, 'crds', first), 'utf8'))?.[1];
}

/** Runs `create-rxkube …`; resolves with the exit code. */
export async function main(argv: readonly string[], io: CliIo = terminalIo()): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      options: {
        group: { type: 'string' },
        kind: { type: 'string' },
        versions: { type: 'string' },
        version: { type: 'string' },
        yes: { type: 'boolean', short: 'y' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (err) {
    io.err(`create-rxkube: ${err instanceof Error ? err.message : String(err)}\n\n${USAGE}\n`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help === true) {
    io.out(`${USAGE}\n`);
    return 0;
  }
  const ask = values.yes === true ? undefined : io.ask;
  const answer = async (given: string | undefined, question: string, fallback: string): Promise<string> =>
    given ?? (ask === undefined ? fallback : await ask(question, fallback));
  try {
    if (positionals[0] === 'api') {
      if (values.kind === undefined) throw new ScaffoldError('SCAFFOLD_INPUT_INVALID', '`create-rxkube api` needs --kind (e.g. --kind Gadget)');
      const dir = resolve(io.cwd, positionals[1] ?? '.');
      const group = values.group ?? (await projectGroup(dir)) ?? 'example.com';
      const versions = parseVersions(values.versions ?? values.version ?? 'v1');
      const names = await addKind({ dir, group, kind: values.kind, versions });
      io.out(
        `added ${names.kind} (${names.plural}.${names.group}, ${names.versions.join(', ')}): crds/${names.plural}.${names.group}.yaml, src/${names.file}-controller.ts, test/${names.file}-controller.test.ts; src/manager.ts runs its controller\n` +
          'Next: npm test, then npm run manifests (deploy/rbac.yaml gets its rules)\n',
      );
      return 0;
    }
    const dirArg = positionals[0] ?? (await answer(undefined, 'Project folder', 'my-operator'));
    const dir = resolve(io.cwd, dirArg);
    const name = checkProjectName(basename(dir));
    const group = await answer(values.group, 'API group of the first custom resource', 'example.com');
    const kind = await answer(values.kind, 'Its kind', 'Widget');
    const versions = parseVersions(await answer(values.versions ?? values.version, 'Its versions, the first stored', 'v1'));
    const names = await createProject({ dir, name, group, kind, versions });
    io.out(
      `created ${name} with ${names.kind} (${names.plural}.${names.group}) in ${dir}\n\nNext:\n  cd ${dirArg}\n  npm install\n  npm run dev        # the manager against an embedded API server\n  npm test\n  npm run manifests  # deploy/rbac.yaml, derived from the manager (CI checks it)\n`,
    );
    return 0;
  } catch (err) {
    if (err instanceof ScaffoldError) {
      io.err(`create-rxkube: ${err.message}\n`);
      return 1;
    }
    throw err;
  }
}
