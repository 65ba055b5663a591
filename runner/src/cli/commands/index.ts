import type { Command } from 'commander';
import type { CliContext } from '../context.js';

/** A CLI command module: adds its command(s) to the program. */
export type RegisterCommand = (program: Command, ctx: CliContext) => void;

type CommandModule = () => Promise<{ register: RegisterCommand }>;

/**
 * Every command module, in the order `chs --help` lists them, keyed by the top-level command
 * name(s) it registers. Modules load on demand: `chs ingest …` loads the ingest command and what
 * it needs, not the HTTP server, the connectors or the demo data. Add a command here.
 */
const MODULES: readonly (readonly [names: readonly string[], load: CommandModule])[] = [
  [['init'], () => import('./init.js')],
  [['serve'], () => import('./serve.js')],
  [['keys'], () => import('./keys.js')],
  [['webhooks'], () => import('./webhooks.js')],
  [['clients'], () => import('./clients.js')],
  [['outcomes'], () => import('./outcomes.js')],
  [['health'], () => import('./health.js')],
  [['ingest'], () => import('./ingest.js')],
  [['sentiment'], () => import('./sentiment.js')],
  [['connect', 'disconnect'], () => import('./connect.js')],
  [['demo'], () => import('./demo.js')],
  [['sync'], () => import('./sync.js')],
  [['notify'], () => import('./notify.js')],
  [['profile'], () => import('./profile.js')],
  [['secrets'], () => import('./secrets.js')],
];

/** The register functions of the named command, or of every command when `name` is not one (help, unknown commands). */
export async function loadCommands(name: string | undefined): Promise<RegisterCommand[]> {
  const one = MODULES.find(([names]) => name !== undefined && names.includes(name));
  const chosen = one ? [one] : MODULES;
  return (await Promise.all(chosen.map(([, load]) => load()))).map((m) => m.register);
}
