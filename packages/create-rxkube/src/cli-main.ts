// The `create-rxkube` executable (bin/create-rxkube.js runs it from the sources through tsx).
import { main } from './cli.js';

process.exitCode = await main(process.argv.slice(2));
