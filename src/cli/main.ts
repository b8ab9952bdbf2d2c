#!/usr/bin/env node
/**
 * The `toolkit-agent` command. Exit codes: 0 ok, 1 failure, 2 usage (a wrong command, argument or
 * option). Results go to standard output, notes and errors to standard error.
 */
import './node-version-check.ts'; // first: an unsupported Node.js stops here, with one line
// Then the colour switches settle before any library reads them (https://no-color.org).
import './color-env.ts';
import { CommanderError } from 'commander';
import { createProgram } from './program.ts';
import { CliError, EXIT, printError } from './output.ts';

async function main(argv: string[]): Promise<number> {
  const program = createProgram();
  if (argv.length <= 2) {
    program.outputHelp({ error: true });
    return EXIT.usage;
  }
  try {
    await program.parseAsync(argv);
    return typeof process.exitCode === 'number' ? process.exitCode : EXIT.ok;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and version end with code 0; every other commander error is a usage mistake.
      if (['commander.helpDisplayed', 'commander.version'].includes(error.code)) return EXIT.ok;
      return EXIT.usage;
    }
    const message = error instanceof Error ? error.message : String(error);
    printError(message);
    if (process.env.TOOLKIT_AGENT_DEBUG && error instanceof Error) process.stderr.write(`${error.stack}\n`);
    return error instanceof CliError ? error.exitCode : EXIT.failure;
  }
}

process.exitCode = await main(process.argv);
