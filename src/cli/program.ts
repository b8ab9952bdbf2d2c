import { readFileSync } from 'node:fs';
import { Command } from 'commander';
import { registerAuth } from './auth.ts';
import { registerChat } from './chat.ts';
import { registerCodec } from './codec.ts';
import { registerCreds } from './creds.ts';
import { registerDeploy } from './deploy.ts';
import { registerEval } from './eval.ts';
import { registerInit } from './init.ts';
import { registerMcp } from './mcp.ts';
import { registerMemory } from './memory.ts';
import { registerA2a } from './a2a.ts';
import { registerModel } from './model.ts';
import { registerReplay } from './replay.ts';
import { registerRun } from './run.ts';
import { registerRuns } from './runs.ts';
import { registerSchedules } from './schedules.ts';
import { registerServer } from './server.ts';
import { registerSetup } from './setup.ts';
import { registerSkills } from './skills.ts';
import { registerStudio } from './studio.ts';
import { registerTriggers } from './triggers.ts';
import { registerUsage } from './usage.ts';

const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  version: string;
};

/** The command tree. Commander errors are thrown (exit codes are decided in main). */
export function createProgram(): Command {
  const program = new Command('toolkit-agent')
    .description(
      'Durable AI agents on Temporal: run and chat with agents, manage credentials, logins, skills and runs.',
    )
    .version(version)
    .option('-c, --config <file>', 'the config file (default: toolkit-agent.config.ts here or above)')
    .showSuggestionAfterError()
    .exitOverride();
  program.configureHelp({ showGlobalOptions: true });
  registerInit(program);
  registerRun(program);
  registerChat(program);
  registerServer(program);
  registerSetup(program);
  registerCodec(program);
  registerRuns(program);
  registerCreds(program);
  registerAuth(program);
  registerSkills(program);
  registerTriggers(program);
  registerSchedules(program);
  registerMcp(program);
  registerA2a(program);
  registerModel(program);
  registerUsage(program);
  registerMemory(program);
  registerReplay(program);
  registerDeploy(program);
  registerEval(program);
  registerStudio(program);
  return program;
}
