// Entry point for running the CLI from source (bin/rxkube.js uses it without a build).
import { main } from './cli.js';

process.exitCode = await main(process.argv.slice(2));
